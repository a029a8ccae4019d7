-- SQL functions for SCRU128, ULID and SCRU64 IDs in PostgreSQL, from
-- github.com/fastid/scru128: convert between an ID and its text, read its
-- time, bound a range of IDs by time, and mint SCRU128 IDs in the server.
--
-- Run it once per database, and again after an upgrade (every statement
-- replaces what an earlier run made), as the role that is to own the
-- functions:
--
--     psql -v ON_ERROR_STOP=1 -f postgres/scru128.sql "$DATABASE_URL"
--
-- It creates its functions, two sequences and a table in the first schema
-- of the search_path. Give it a schema of its own, where only the
-- installing role may create, and name the schema for the run; the
-- functions then work by schema-qualified name from any search_path:
--
--     PGOPTIONS='-c search_path=ids' psql -v ON_ERROR_STOP=1 -f postgres/scru128.sql
--
-- It is plain SQL and PL/pgSQL, needs no extension and no C, and uses
-- nothing newer than PostgreSQL 13 (gen_random_uuid() is built in since
-- 13). It is tested on PostgreSQL 15, against the Go implementation, by the
-- integration module's sqlfunc*_test.go. docs/postgresql-functions.md is the
-- guide, and says what holds against other roles of the database.
--
-- Storage, as the Go packages bind it: a SCRU128 or a ULID is the 16 bytes
-- of a uuid column (which then sorts as the IDs do); a SCRU64 is a bigint.
--
-- Errors: text that is not an ID raises invalid_text_representation
-- (22P02), naming the length in bytes or the first bad byte and its offset,
-- counted in bytes of the UTF-8 text from 0, as the Go parsers count (in a
-- SQL_ASCII database, whose text may hold any byte, in the bytes as
-- stored); a bigint outside SCRU64's range raises numeric_value_out_of_range
-- (22003); a time an ID cannot hold raises datetime_field_overflow (22008).
-- NULL in gives NULL out.
--
-- Other roles. The functions run in databases that other roles share, with
-- the search_path of whoever calls them, and PostgreSQL looks up by name,
-- on that search_path, every operator, function and type an expression
-- names without a schema: it takes another role's object where that one
-- matches the arguments better than pg_catalog's (bigint & integer has no
-- exact match in pg_catalog), or where the caller put pg_catalog after
-- that role's schema. So every name in the bodies below is pg_catalog's,
-- written out: OPERATOR(pg_catalog.&), pg_catalog.left(...),
-- ::pg_catalog.text. (Type names that are keywords, such as bigint, int
-- and bit, are pg_catalog's by the grammar.) This is what a SET
-- search_path clause would give, at no cost per call; such a clause makes
-- every call save, set and restore the setting, which costs more than a
-- conversion does. Constructs that look an operator up by a name that
-- cannot be qualified are not used: BETWEEN, IN (...), LIKE, NULLIF, IS
-- DISTINCT FROM, CASE x WHEN. integration/sqlfunc_lint_test.go holds every
-- body to this, and sqlfunc_hostile_test.go calls every function with
-- another role's objects in place of each name.
--
-- The conversions avoid numeric, which is slow. They work on bigint limbs
-- sized so that every product and sum stays below 2^63, and they are
-- PL/pgSQL functions of few statements because a statement costs more than
-- an operator inside it. An operator written OPERATOR(...) has one
-- precedence, whichever it is, and binds left to right, so the expressions
-- below bracket every product inside a sum and every mix of operators
-- whose order would matter.


-- ========================================================================
-- Before anything: the file replaces only what the installing role owns.
-- A function of one of the file's names that another role made, in the
-- schema it installs in, would keep that role as its owner through CREATE
-- OR REPLACE, and with it the power to change its body later; and one with
-- other arguments would be chosen over the file's by a caller passing an
-- untyped literal.
-- ========================================================================

DO $preflight$
DECLARE
  schema CONSTANT pg_catalog.text := pg_catalog.current_schema();
  f pg_catalog.record;
BEGIN
  IF schema IS NULL THEN
    RAISE EXCEPTION 'scru128.sql: no schema to install in: no schema of the search_path exists';
  END IF;
  FOR f IN
    SELECT p.oid::pg_catalog.regprocedure AS signature, pg_catalog.pg_get_userbyid(p.proowner) AS owner
    FROM pg_catalog.pg_proc p
    WHERE p.pronamespace OPERATOR(pg_catalog.=) pg_catalog.to_regnamespace(pg_catalog.quote_ident(schema))
      AND p.proowner OPERATOR(pg_catalog.<>) (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) current_user)
      AND pg_catalog.array_position(ARRAY[
        'scru128_to_text', 'scru128_from_text', 'scru128_time', 'scru128_min_at', 'scru128_max_at', 'scru128_generate',
        'ulid_to_text', 'ulid_from_text', 'ulid_time', 'ulid_min_at', 'ulid_max_at',
        'scru64_to_text', 'scru64_from_text', 'scru64_time', 'scru64_min_at', 'scru64_max_at']::pg_catalog.name[], p.proname) IS NOT NULL
  LOOP
    RAISE EXCEPTION 'scru128.sql: function % in schema % belongs to role %, not to %, who runs this file',
      f.signature, schema, f.owner, current_user
      USING HINT = 'Run the file as the role that owns the functions, or drop that role''s function first.';
  END LOOP;
END
$preflight$;


-- ========================================================================
-- SCRU128
-- ========================================================================

CREATE OR REPLACE FUNCTION scru128_to_text(id pg_catalog.uuid) RETURNS pg_catalog.text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
-- Long division of the 128-bit value by 36^6 gives its digits six at a
-- time, least significant first. The value is cut into five 31-bit limbs
-- (the top one holds 4 bits), so that a step divides remainder * 2^31 +
-- limb < 36^6 * 2^31 < 2^63. A step keeps quotient * 2^32 + remainder in
-- one bigint: the quotient limb is below 2^31 and the remainder below 36^6
-- < 2^32. Three passes leave a quotient below 2^35, the last seven digits.
DECLARE
  hex pg_catalog.text := pg_catalog.encode(pg_catalog.uuid_send(id), 'hex');
  hi bigint := ('x' OPERATOR(pg_catalog.||) pg_catalog.left(hex, 16))::bit(64)::bigint;  -- bits 127-64 (as a signed bigint)
  lo bigint := ('x' OPERATOR(pg_catalog.||) pg_catalog.right(hex, 16))::bit(64)::bigint; -- bits 63-0
  d CONSTANT bigint := 2176782336;                                     -- 36^6
  t bigint;
  s3 bigint; s2 bigint; s1 bigint; s0 bigint;                          -- step results
  g0 bigint; g1 bigint; g2 bigint;                                     -- digits 0-5, 6-11, 12-17
  top bigint;                                                          -- digits 18-24
  alphabet CONSTANT pg_catalog.bytea := '0123456789abcdefghijklmnopqrstuvwxyz';
BEGIN
  -- Pass 1. The limbs are bits 127-124, 123-93, 92-62, 61-31 and 30-0; the
  -- first is below 36^6, so it is the first remainder.
  t := (((hi OPERATOR(pg_catalog.>>) 60) OPERATOR(pg_catalog.&) 15) OPERATOR(pg_catalog.<<) 31) OPERATOR(pg_catalog.|) ((hi OPERATOR(pg_catalog.>>) 29) OPERATOR(pg_catalog.&) 2147483647);
  s3 := ((t OPERATOR(pg_catalog./) d) OPERATOR(pg_catalog.<<) 32) OPERATOR(pg_catalog.|) (t OPERATOR(pg_catalog.%) d);
  t := ((s3 OPERATOR(pg_catalog.&) 4294967295) OPERATOR(pg_catalog.<<) 31) OPERATOR(pg_catalog.|) (((hi OPERATOR(pg_catalog.&) 536870911) OPERATOR(pg_catalog.<<) 2) OPERATOR(pg_catalog.|) ((lo OPERATOR(pg_catalog.>>) 62) OPERATOR(pg_catalog.&) 3));
  s2 := ((t OPERATOR(pg_catalog./) d) OPERATOR(pg_catalog.<<) 32) OPERATOR(pg_catalog.|) (t OPERATOR(pg_catalog.%) d);
  t := ((s2 OPERATOR(pg_catalog.&) 4294967295) OPERATOR(pg_catalog.<<) 31) OPERATOR(pg_catalog.|) ((lo OPERATOR(pg_catalog.>>) 31) OPERATOR(pg_catalog.&) 2147483647);
  s1 := ((t OPERATOR(pg_catalog./) d) OPERATOR(pg_catalog.<<) 32) OPERATOR(pg_catalog.|) (t OPERATOR(pg_catalog.%) d);
  t := ((s1 OPERATOR(pg_catalog.&) 4294967295) OPERATOR(pg_catalog.<<) 31) OPERATOR(pg_catalog.|) (lo OPERATOR(pg_catalog.&) 2147483647);
  s0 := ((t OPERATOR(pg_catalog./) d) OPERATOR(pg_catalog.<<) 32) OPERATOR(pg_catalog.|) (t OPERATOR(pg_catalog.%) d);
  g0 := s0 OPERATOR(pg_catalog.&) 4294967295;
  -- Pass 2 divides the quotient limbs s3..s0 >> 32; the first is below 16.
  t := ((s3 OPERATOR(pg_catalog.>>) 32) OPERATOR(pg_catalog.<<) 31) OPERATOR(pg_catalog.|) (s2 OPERATOR(pg_catalog.>>) 32);
  s2 := ((t OPERATOR(pg_catalog./) d) OPERATOR(pg_catalog.<<) 32) OPERATOR(pg_catalog.|) (t OPERATOR(pg_catalog.%) d);
  t := ((s2 OPERATOR(pg_catalog.&) 4294967295) OPERATOR(pg_catalog.<<) 31) OPERATOR(pg_catalog.|) (s1 OPERATOR(pg_catalog.>>) 32);
  s1 := ((t OPERATOR(pg_catalog./) d) OPERATOR(pg_catalog.<<) 32) OPERATOR(pg_catalog.|) (t OPERATOR(pg_catalog.%) d);
  t := ((s1 OPERATOR(pg_catalog.&) 4294967295) OPERATOR(pg_catalog.<<) 31) OPERATOR(pg_catalog.|) (s0 OPERATOR(pg_catalog.>>) 32);
  s0 := ((t OPERATOR(pg_catalog./) d) OPERATOR(pg_catalog.<<) 32) OPERATOR(pg_catalog.|) (t OPERATOR(pg_catalog.%) d);
  g1 := s0 OPERATOR(pg_catalog.&) 4294967295;
  -- Pass 3, the same on s2..s0 >> 32.
  t := ((s2 OPERATOR(pg_catalog.>>) 32) OPERATOR(pg_catalog.<<) 31) OPERATOR(pg_catalog.|) (s1 OPERATOR(pg_catalog.>>) 32);
  s1 := ((t OPERATOR(pg_catalog./) d) OPERATOR(pg_catalog.<<) 32) OPERATOR(pg_catalog.|) (t OPERATOR(pg_catalog.%) d);
  t := ((s1 OPERATOR(pg_catalog.&) 4294967295) OPERATOR(pg_catalog.<<) 31) OPERATOR(pg_catalog.|) (s0 OPERATOR(pg_catalog.>>) 32);
  s0 := ((t OPERATOR(pg_catalog./) d) OPERATOR(pg_catalog.<<) 32) OPERATOR(pg_catalog.|) (t OPERATOR(pg_catalog.%) d);
  g2 := s0 OPERATOR(pg_catalog.&) 4294967295;
  top := ((s1 OPERATOR(pg_catalog.>>) 32) OPERATOR(pg_catalog.<<) 31) OPERATOR(pg_catalog.|) (s0 OPERATOR(pg_catalog.>>) 32);
  -- Digit k of a group is (group / 36^k) % 36, and byte digit + 1 of the
  -- alphabet (substring counts from 1).
  RETURN pg_catalog.encode(
    pg_catalog.substring(alphabet, (top OPERATOR(pg_catalog./) 2176782336 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (top OPERATOR(pg_catalog./) 60466176 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (top OPERATOR(pg_catalog./) 1679616 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (top OPERATOR(pg_catalog./) 46656 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (top OPERATOR(pg_catalog./) 1296 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (top OPERATOR(pg_catalog./) 36 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (top OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g2 OPERATOR(pg_catalog./) 60466176 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g2 OPERATOR(pg_catalog./) 1679616 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g2 OPERATOR(pg_catalog./) 46656 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g2 OPERATOR(pg_catalog./) 1296 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g2 OPERATOR(pg_catalog./) 36 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g2 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g1 OPERATOR(pg_catalog./) 60466176 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g1 OPERATOR(pg_catalog./) 1679616 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g1 OPERATOR(pg_catalog./) 46656 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g1 OPERATOR(pg_catalog./) 1296 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g1 OPERATOR(pg_catalog./) 36 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g1 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g0 OPERATOR(pg_catalog./) 60466176 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g0 OPERATOR(pg_catalog./) 1679616 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g0 OPERATOR(pg_catalog./) 46656 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g0 OPERATOR(pg_catalog./) 1296 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g0 OPERATOR(pg_catalog./) 36 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g0 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1),
    'escape');
END
$$;

COMMENT ON FUNCTION scru128_to_text(pg_catalog.uuid) IS
  'The 25-digit lower-case Base36 text of the SCRU128 ID held in a uuid.';


CREATE OR REPLACE FUNCTION scru128_from_text(id pg_catalog.text) RETURNS pg_catalog.uuid
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
-- The digits are read six at a time into groups below 36^6 < 2^31.02, and
-- Horner's rule, value = value * 36^6 + group, runs on 31-bit limbs: a
-- limb times 36^6 plus the carry from the limb below stays under 2^63, and
-- what lies above bit 31 of the result is the carry to the next limb. Each
-- of the four steps is written out with its own variables (x, y, z, w),
-- indexed by limb from the least significant. The range is checked on the
-- digits before the arithmetic.
DECLARE
  b pg_catalog.bytea;
  -- Byte c of this table is 48 plus the value of the digit whose byte is c
  -- (0-9, a-z and A-Z are 0-35; the bytes of other characters are never
  -- looked up). A group of six digits thus comes out 48 * (36^5 + 36^4 +
  -- 36^3 + 36^2 + 36 + 1) = 2985301488 too high, taken off once.
  value CONSTANT pg_catalog.bytea := '000000000000000000000000000000000000000000000000'
    '01234567890000000:;<=>?@ABCDEFGHIJKLMNOPQRS000000:;<=>?@ABCDEFGHIJKLMNOPQRS';
  d CONSTANT bigint := 2176782336;  -- 36^6
  m CONSTANT bigint := 2147483647;  -- 2^31-1, a limb
  lead bigint; g1 bigint; g2 bigint; g3 bigint; g4 bigint;
  x0 bigint; y0 bigint; y1 bigint; z0 bigint; z1 bigint; z2 bigint;
  w0 bigint; w1 bigint; w2 bigint; w3 bigint;
  len int; bad int;
BEGIN
  IF id OPERATOR(pg_catalog.!~) '^[0-9A-Za-z]{25}$' THEN
    -- The bytes of the text in UTF-8: as stored in a UTF8 database, and in
    -- a SQL_ASCII one, whose text holds any byte but NUL; converted in any
    -- other (a conversion that PostgreSQL finds on the caller's
    -- search_path, which is why the others do not convert).
    IF pg_catalog.getdatabaseencoding() OPERATOR(pg_catalog.=) 'UTF8' OR pg_catalog.getdatabaseencoding() OPERATOR(pg_catalog.=) 'SQL_ASCII' THEN
      b := pg_catalog.convert_to(id, 'SQL_ASCII');
    ELSE
      b := pg_catalog.convert_to(id, 'UTF8');
    END IF;
    len := pg_catalog.length(b);
    IF len OPERATOR(pg_catalog.<>) 25 THEN
      RAISE EXCEPTION 'invalid SCRU128 text: length % bytes, want 25', len
        USING ERRCODE = 'invalid_text_representation';
    END IF;
    -- Every character before the bad one is an ASCII digit, one byte.
    bad := pg_catalog.length(pg_catalog.substring(id, '^[0-9A-Za-z]*'));
    RAISE EXCEPTION 'invalid SCRU128 text %: invalid character % (byte 0x%) at offset %',
      pg_catalog.to_json(id)::pg_catalog.text, pg_catalog.to_json(pg_catalog.substr(id, bad OPERATOR(pg_catalog.+) 1, 1))::pg_catalog.text,
      pg_catalog.lpad(pg_catalog.to_hex(pg_catalog.get_byte(b, bad)), 2, '0'), bad
      USING ERRCODE = 'invalid_text_representation',
            DETAIL = 'A SCRU128 text is 25 digits from 0-9, a-z and A-Z; the offset counts bytes from 0.';
  END IF;
  -- The text is ASCII here, the same bytes in every server encoding.
  b := pg_catalog.convert_to(id, 'SQL_ASCII');
  lead := pg_catalog.get_byte(value, pg_catalog.get_byte(b, 0)) OPERATOR(pg_catalog.-) 48;
  g1 := (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 1)) OPERATOR(pg_catalog.*) 60466176::bigint) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 2)) OPERATOR(pg_catalog.*) 1679616) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 3)) OPERATOR(pg_catalog.*) 46656) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 4)) OPERATOR(pg_catalog.*) 1296) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 5)) OPERATOR(pg_catalog.*) 36) OPERATOR(pg_catalog.+)
        pg_catalog.get_byte(value, pg_catalog.get_byte(b, 6)) OPERATOR(pg_catalog.-) 2985301488;
  g2 := (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 7)) OPERATOR(pg_catalog.*) 60466176::bigint) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 8)) OPERATOR(pg_catalog.*) 1679616) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 9)) OPERATOR(pg_catalog.*) 46656) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 10)) OPERATOR(pg_catalog.*) 1296) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 11)) OPERATOR(pg_catalog.*) 36) OPERATOR(pg_catalog.+)
        pg_catalog.get_byte(value, pg_catalog.get_byte(b, 12)) OPERATOR(pg_catalog.-) 2985301488;
  g3 := (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 13)) OPERATOR(pg_catalog.*) 60466176::bigint) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 14)) OPERATOR(pg_catalog.*) 1679616) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 15)) OPERATOR(pg_catalog.*) 46656) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 16)) OPERATOR(pg_catalog.*) 1296) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 17)) OPERATOR(pg_catalog.*) 36) OPERATOR(pg_catalog.+)
        pg_catalog.get_byte(value, pg_catalog.get_byte(b, 18)) OPERATOR(pg_catalog.-) 2985301488;
  g4 := (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 19)) OPERATOR(pg_catalog.*) 60466176::bigint) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 20)) OPERATOR(pg_catalog.*) 1679616) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 21)) OPERATOR(pg_catalog.*) 46656) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 22)) OPERATOR(pg_catalog.*) 1296) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 23)) OPERATOR(pg_catalog.*) 36) OPERATOR(pg_catalog.+)
        pg_catalog.get_byte(value, pg_catalog.get_byte(b, 24)) OPERATOR(pg_catalog.-) 2985301488;
  -- The largest ID, 2^128-1, is f 5lxx1z z5pnor ynqglh zmsp33 in these groups.
  IF (lead, g1, g2, g3, g4) OPERATOR(pg_catalog.>) (15, 339185303, 2125911339, 2095715717, 2154606591) THEN
    RAISE EXCEPTION 'invalid SCRU128 text %: above the largest ID, f5lxx1zz5pnorynqglhzmsp33 (2^128-1)',
      pg_catalog.to_json(id)::pg_catalog.text
      USING ERRCODE = 'invalid_text_representation';
  END IF;
  x0 := (lead OPERATOR(pg_catalog.*) d) OPERATOR(pg_catalog.+) g1;  -- below 36^7 < 2^37
  y0 := ((x0 OPERATOR(pg_catalog.&) m) OPERATOR(pg_catalog.*) d) OPERATOR(pg_catalog.+) g2;
  y1 := ((x0 OPERATOR(pg_catalog.>>) 31) OPERATOR(pg_catalog.*) d) OPERATOR(pg_catalog.+) (y0 OPERATOR(pg_catalog.>>) 31);
  z0 := ((y0 OPERATOR(pg_catalog.&) m) OPERATOR(pg_catalog.*) d) OPERATOR(pg_catalog.+) g3;
  z1 := ((y1 OPERATOR(pg_catalog.&) m) OPERATOR(pg_catalog.*) d) OPERATOR(pg_catalog.+) (z0 OPERATOR(pg_catalog.>>) 31);
  z2 := ((y1 OPERATOR(pg_catalog.>>) 31) OPERATOR(pg_catalog.*) d) OPERATOR(pg_catalog.+) (z1 OPERATOR(pg_catalog.>>) 31);
  w0 := ((z0 OPERATOR(pg_catalog.&) m) OPERATOR(pg_catalog.*) d) OPERATOR(pg_catalog.+) g4;
  w1 := ((z1 OPERATOR(pg_catalog.&) m) OPERATOR(pg_catalog.*) d) OPERATOR(pg_catalog.+) (w0 OPERATOR(pg_catalog.>>) 31);
  w2 := ((z2 OPERATOR(pg_catalog.&) m) OPERATOR(pg_catalog.*) d) OPERATOR(pg_catalog.+) (w1 OPERATOR(pg_catalog.>>) 31);
  w3 := ((z2 OPERATOR(pg_catalog.>>) 31) OPERATOR(pg_catalog.*) d) OPERATOR(pg_catalog.+) (w2 OPERATOR(pg_catalog.>>) 31);
  -- Limbs w0..w3 & m hold bits 0-30, 31-61, 62-92 and 93-123; w3 >> 31,
  -- bits 124-127.
  RETURN (pg_catalog.lpad(pg_catalog.to_hex(((w3 OPERATOR(pg_catalog.>>) 31) OPERATOR(pg_catalog.<<) 60) OPERATOR(pg_catalog.|) ((w3 OPERATOR(pg_catalog.&) m) OPERATOR(pg_catalog.<<) 29) OPERATOR(pg_catalog.|) ((w2 OPERATOR(pg_catalog.&) m) OPERATOR(pg_catalog.>>) 2)), 16, '0') OPERATOR(pg_catalog.||)
          pg_catalog.lpad(pg_catalog.to_hex(((w2 OPERATOR(pg_catalog.&) 3) OPERATOR(pg_catalog.<<) 62) OPERATOR(pg_catalog.|) ((w1 OPERATOR(pg_catalog.&) m) OPERATOR(pg_catalog.<<) 31) OPERATOR(pg_catalog.|) (w0 OPERATOR(pg_catalog.&) m)), 16, '0'))::pg_catalog.uuid;
END
$$;

COMMENT ON FUNCTION scru128_from_text(pg_catalog.text) IS
  'The SCRU128 ID of a 25-digit Base36 text, in either case, as a uuid.';


CREATE OR REPLACE FUNCTION scru128_time(id pg_catalog.uuid) RETURNS pg_catalog.timestamptz
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
-- The timestamp is the top 48 bits, in Unix milliseconds. to_timestamp
-- takes a double, exact for whole seconds (and for their microseconds:
-- s * 10^6 = s * 15625 * 2^6 with s * 15625 < 2^53); the milliseconds are
-- added as an interval of time alone, which no time zone changes.
DECLARE
  ms bigint := ('x' OPERATOR(pg_catalog.||) pg_catalog.left(pg_catalog.encode(pg_catalog.uuid_send(id), 'hex'), 12))::bit(48)::bigint;
BEGIN
  RETURN pg_catalog.to_timestamp(ms OPERATOR(pg_catalog./) 1000) OPERATOR(pg_catalog.+) ((ms OPERATOR(pg_catalog.%) 1000) OPERATOR(pg_catalog.*) interval '1 millisecond');
END
$$;

COMMENT ON FUNCTION scru128_time(pg_catalog.uuid) IS
  'The time of a SCRU128 ID: its timestamp, in milliseconds.';


CREATE OR REPLACE FUNCTION scru128_min_at(t pg_catalog.timestamptz) RETURNS pg_catalog.uuid
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
-- timestamptz_send gives the exact microseconds since 2000-01-01 UTC
-- (EXTRACT(epoch) is a double before PostgreSQL 14), 946684800 seconds
-- after the Unix epoch; the infinities lie beyond either end of it.
DECLARE
  us bigint := ('x' OPERATOR(pg_catalog.||) pg_catalog.encode(pg_catalog.timestamptz_send(t), 'hex'))::bit(64)::bigint;
BEGIN
  IF us OPERATOR(pg_catalog.<) -946684800000000 OR us OPERATOR(pg_catalog.>=) (281474976710656000 OPERATOR(pg_catalog.-) 946684800000000) THEN
    RAISE EXCEPTION 'a SCRU128 ID cannot hold the time %: it holds 1970-01-01 to 10889-08-02 05:31:50.655 UTC', t
      USING ERRCODE = 'datetime_field_overflow';
  END IF;
  RETURN (pg_catalog.lpad(pg_catalog.to_hex((us OPERATOR(pg_catalog.+) 946684800000000) OPERATOR(pg_catalog./) 1000), 12, '0') OPERATOR(pg_catalog.||) '00000000000000000000')::pg_catalog.uuid;
END
$$;

COMMENT ON FUNCTION scru128_min_at(pg_catalog.timestamptz) IS
  'The smallest SCRU128 ID of the millisecond that holds t: id BETWEEN scru128_min_at(t0) AND scru128_max_at(t1) selects the IDs of t0 to t1.';


CREATE OR REPLACE FUNCTION scru128_max_at(t pg_catalog.timestamptz) RETURNS pg_catalog.uuid
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
  us bigint := ('x' OPERATOR(pg_catalog.||) pg_catalog.encode(pg_catalog.timestamptz_send(t), 'hex'))::bit(64)::bigint;
BEGIN
  IF us OPERATOR(pg_catalog.<) -946684800000000 OR us OPERATOR(pg_catalog.>=) (281474976710656000 OPERATOR(pg_catalog.-) 946684800000000) THEN
    RAISE EXCEPTION 'a SCRU128 ID cannot hold the time %: it holds 1970-01-01 to 10889-08-02 05:31:50.655 UTC', t
      USING ERRCODE = 'datetime_field_overflow';
  END IF;
  RETURN (pg_catalog.lpad(pg_catalog.to_hex((us OPERATOR(pg_catalog.+) 946684800000000) OPERATOR(pg_catalog./) 1000), 12, '0') OPERATOR(pg_catalog.||) 'ffffffffffffffffffff')::pg_catalog.uuid;
END
$$;

COMMENT ON FUNCTION scru128_max_at(pg_catalog.timestamptz) IS
  'The largest SCRU128 ID of the millisecond that holds t.';


-- ========================================================================
-- scru128_generate(): IDs minted in the server, which no role can steer.
-- ========================================================================
--
-- The generator runs the specification's algorithm on a state per session:
-- the last ID's timestamp, its counters (counter_hi * 2^24 + counter_lo)
-- and when its counter_hi was drawn. What keeps that state is the design
-- question, because whatever a role can write, it can steer the IDs with:
-- a role that may only INSERT into a table whose id defaults to
-- scru128_generate() could otherwise stamp its rows with a time of its
-- choosing, or mint IDs below the ones it minted before.
--
-- PL/pgSQL keeps nothing between calls but settings, tables and sequences.
-- A custom setting is what a session can keep cheaply, and what any role
-- can set (set_config, SET, ALTER ROLE ... SET), RESET ALL and DISCARD ALL
-- clear, and a rollback undoes. A temporary table or sequence is undone or
-- dropped the same ways, its name can be taken first by the session's own
-- role, and a transaction that touches one cannot PREPARE TRANSACTION. A
-- sequence is the one thing a rollback leaves alone, but a role either
-- cannot use one or can also read it, and setting one writes WAL and gives
-- the transaction an XID for every call. And the clock alone does not do:
-- after a step back, an ID minted before the session lost its state may lie
-- ahead of the clock, and nothing in the session remembers it.
--
-- So the function runs as its owner (SECURITY DEFINER) and keeps, besides
-- the setting, two sequences and a table that no other role may touch (the
-- file revokes every privilege on them):
--
--   scru128_generate_calls numbers the calls, from a secret random start,
--     outside transactions. The setting holds the state together with a
--     tag, the first 128 bits of SHA-256 over the call's number and the
--     state. The next call of the session takes the next number and
--     accepts the state only if the tag matches the number before its own:
--     a role that set the setting, or a rollback, RESET ALL or DISCARD ALL
--     that undid it, or an earlier value put back, leaves a state without
--     a valid tag, and the call starts afresh. A session takes its numbers
--     a million at a time, so the next million looks the same, which costs
--     only a fresh start.
--   scru128_generate_high is the server's high-water mark: at or above the
--     timestamp of every ID any session minted, raised before an ID above
--     it leaves the function. A fresh start begins above it, so above
--     every ID the session minted before it lost its state, whatever the
--     clock did since: after the clock, if the mark is behind the clock;
--     at the next millisecond, waiting for it (2 ms at most), if the mark
--     is this millisecond or the one after, as on a busy server; counting
--     on from the mark, if the clock went back by up to the rollback
--     allowance. A session's state remembers the highest mark it has seen,
--     so the mark is read once a millisecond at most, and raised (below)
--     only when a millisecond passes the highest one minted.
--   scru128_generate_lock serializes the raises of the mark: a raise locks
--     it, reads the mark, sets it if still below, and ends a subtransaction
--     to let go of the lock at once. Only the owner may lock the table, and
--     a statement that locks a table before it checks privileges holds the
--     lock only until it fails.
--
-- Weighed and not chosen: the setting alone, checked only against the
-- clock (it bounds the timestamp, but a role can still put the state
-- below an ID it minted); a state in temporary sequences owned by the
-- function's owner (their names can be taken first, DISCARD ALL drops them,
-- and prepared transactions refuse them); a sequence set on every call as
-- the session's state (WAL and an XID per call); a high-water mark written
-- only on the rare path after a rollback or reset (it cannot know the IDs
-- the lost state minted); an advisory lock around the raise (any role can
-- hold the same key, and the raises stop).
--
-- What it promises, within one server:
--   - an ID is never at or below an ID the same session minted before,
--     including IDs of transactions and savepoints rolled back, of
--     exceptions caught, and from before RESET ALL, DISCARD ALL or any
--     setting a role wrote, as long as the clock has not gone back by more
--     than the rollback allowance (10 s) since the ID before;
--   - an ID's timestamp is never more than the allowance from the server's
--     clock at the call (it runs ahead of the clock only after a step back,
--     or by a millisecond when the counters overflow);
--   - nothing another role writes or runs changes either.
-- What it does not promise: order between sessions (uniqueness across
-- sessions rests on the counters and the 32 random bits, as between any two
-- generators); order after the clock went back by more than the allowance
-- (the generator starts over at the clock, as the specification allows);
-- anything against a superuser or the functions' owner, who can set the
-- sequences, read the secret, or replace the function.

DO $install$
DECLARE
  schema CONSTANT pg_catalog.text := pg_catalog.current_schema();
  ident CONSTANT pg_catalog.text := pg_catalog.quote_ident(schema);
  owner pg_catalog.oid;
  rel pg_catalog.record;
  grantee pg_catalog.record;
BEGIN
  -- The relations, new or from an earlier run.
  EXECUTE pg_catalog.format('CREATE SEQUENCE IF NOT EXISTS %s.scru128_generate_calls AS bigint CYCLE CACHE 1000000', ident);
  EXECUTE pg_catalog.format('CREATE %s SEQUENCE IF NOT EXISTS %s.scru128_generate_high AS bigint',
    -- Unlogged where PostgreSQL has them (15): no WAL and no XID for a
    -- raise. A crash resets the mark, and ends every session with it.
    CASE WHEN pg_catalog.current_setting('server_version_num')::int OPERATOR(pg_catalog.>=) 150000 THEN 'UNLOGGED' ELSE '' END, ident);
  EXECUTE pg_catalog.format('CREATE TABLE IF NOT EXISTS %s.scru128_generate_lock ()', ident);

  -- They must be the function's owner's, and no one else may use them.
  SELECT p.proowner INTO owner FROM pg_catalog.pg_proc p
    WHERE p.oid OPERATOR(pg_catalog.=) pg_catalog.to_regprocedure(ident OPERATOR(pg_catalog.||) '.scru128_generate()');
  IF owner IS NULL THEN
    SELECT r.oid INTO owner FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) current_user;
  END IF;
  FOR rel IN
    SELECT c.oid, c.relname, c.relkind, c.relowner, c.relacl FROM pg_catalog.pg_class c
    WHERE c.relnamespace OPERATOR(pg_catalog.=) pg_catalog.to_regnamespace(ident)
      AND pg_catalog.array_position(ARRAY['scru128_generate_calls', 'scru128_generate_high', 'scru128_generate_lock']::pg_catalog.name[], c.relname) IS NOT NULL
  LOOP
    IF rel.relowner OPERATOR(pg_catalog.<>) owner THEN
      RAISE EXCEPTION 'scru128.sql: %.% belongs to role %, not to the owner of scru128_generate(), %',
        schema, rel.relname, pg_catalog.pg_get_userbyid(rel.relowner), pg_catalog.pg_get_userbyid(owner)
        USING HINT = 'Another role made it before the file ran: drop it, and run the file again.';
    END IF;
    IF rel.relkind OPERATOR(pg_catalog.<>) (CASE WHEN rel.relname OPERATOR(pg_catalog.=) 'scru128_generate_lock' THEN 'r' ELSE 'S' END) THEN
      RAISE EXCEPTION 'scru128.sql: %.% is not a %', schema, rel.relname,
        CASE WHEN rel.relname OPERATOR(pg_catalog.=) 'scru128_generate_lock' THEN 'table' ELSE 'sequence' END;
    END IF;
    FOR grantee IN SELECT DISTINCT a.grantee FROM pg_catalog.aclexplode(rel.relacl) a WHERE a.grantee OPERATOR(pg_catalog.<>) owner LOOP
      EXECUTE pg_catalog.format('REVOKE ALL ON %s %s.%I FROM %s',
        CASE WHEN rel.relkind OPERATOR(pg_catalog.=) 'S' THEN 'SEQUENCE' ELSE 'TABLE' END, ident, rel.relname,
        CASE WHEN grantee.grantee OPERATOR(pg_catalog.=) 0 THEN 'PUBLIC' ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(grantee.grantee)) END);
    END LOOP;
  END LOOP;
  -- An earlier version's sequence counted from 1 and without CYCLE; the
  -- numbers restart at a secret random point below 2^62 on every run.
  EXECUTE pg_catalog.format('ALTER SEQUENCE %s.scru128_generate_calls MAXVALUE 9223372036854775807 CYCLE', ident);
  PERFORM pg_catalog.setval((ident OPERATOR(pg_catalog.||) '.scru128_generate_calls')::pg_catalog.regclass,
    ((('x' OPERATOR(pg_catalog.||) pg_catalog.left(pg_catalog.encode(pg_catalog.uuid_send(pg_catalog.gen_random_uuid()), 'hex'), 16))::bit(64)::bigint
      OPERATOR(pg_catalog.&) 4611686018427387903) OPERATOR(pg_catalog.+) 1));

  -- The function, with the schema's name written into it for its objects.
  EXECUTE pg_catalog.replace(pg_catalog.replace($function$
CREATE OR REPLACE FUNCTION __scru128_schema__.scru128_generate() RETURNS pg_catalog.uuid
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SECURITY DEFINER
AS $body$
-- SECURITY DEFINER: it runs as its owner, to use the three objects above,
-- which no caller may. It takes no arguments, builds no SQL, and names
-- every object with its schema, as the rest of the file does; nothing a
-- caller passes or sets reaches anything it runs as the owner.
DECLARE
  calls CONSTANT pg_catalog.regclass := '__scru128_schema__.scru128_generate_calls'::pg_catalog.regclass;
  -- The setting's name ends in the sequence's OID, so that copies of this
  -- file in two schemas keep two states.
  setting CONSTANT pg_catalog.text := 'scru128.generator_' OPERATOR(pg_catalog.||) calls::pg_catalog.oid::pg_catalog.text;
  value pg_catalog.text := pg_catalog.current_setting(setting, true);  -- ts:counters:renewed:high:tag
  state pg_catalog.text;
  n bigint := pg_catalog.nextval(calls);  -- this call's number
  now_ms bigint;
  ts bigint;        -- the timestamp field, Unix milliseconds
  counters bigint;  -- counter_hi * 2^24 + counter_lo
  renewed bigint;   -- when counter_hi was drawn
  high bigint;      -- the highest value of the high-water mark this session has seen
  mark bigint;
  -- 122 random bits from the operating system's generator; hex digits 1-8,
  -- 19-24 and 25-30 (bytes 0-3, 9-11 and 12-14) hold none of the version
  -- and variant bits.
  random_hex pg_catalog.text := pg_catalog.encode(pg_catalog.uuid_send(pg_catalog.gen_random_uuid()), 'hex');
BEGIN
  now_ms := (('x' OPERATOR(pg_catalog.||) pg_catalog.encode(pg_catalog.timestamptz_send(pg_catalog.clock_timestamp()), 'hex'))::bit(64)::bigint OPERATOR(pg_catalog.+) 946684800000000) OPERATOR(pg_catalog./) 1000;
  IF now_ms OPERATOR(pg_catalog.<) 1 OR now_ms OPERATOR(pg_catalog.>) 281474976710655 THEN
    RAISE EXCEPTION 'scru128_generate: the server''s clock reads %, outside the SCRU128 timestamp range (1970-01-01 to 10889-08-02 UTC)',
      pg_catalog.clock_timestamp()
      USING ERRCODE = 'datetime_field_overflow';
  END IF;

  -- The state, if the previous call of this session wrote it: its tag is
  -- over the number before this call's. (A value of another length, or of
  -- another call, or made up, has no matching tag.)
  IF pg_catalog.length(value) OPERATOR(pg_catalog.>) 33 THEN
    state := pg_catalog.left(value, -33);
    IF pg_catalog.right(value, 32) OPERATOR(pg_catalog.=) pg_catalog.left(pg_catalog.encode(pg_catalog.sha256(
        pg_catalog.int8send(n OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog.||) pg_catalog.convert_to(state, 'SQL_ASCII')), 'hex'), 32) THEN
      ts := pg_catalog.split_part(state, ':', 1)::bigint;
      counters := pg_catalog.split_part(state, ':', 2)::bigint;
      renewed := pg_catalog.split_part(state, ':', 3)::bigint;
      high := pg_catalog.split_part(state, ':', 4)::bigint;
    END IF;
  END IF;

  IF ts IS NOT NULL THEN
    IF now_ms OPERATOR(pg_catalog.>) ts THEN
      -- A new millisecond: counter_lo starts again at random.
      ts := now_ms;
      counters := (counters OPERATOR(pg_catalog.&) 281474959933440) OPERATOR(pg_catalog.|) ('x' OPERATOR(pg_catalog.||) pg_catalog.substr(random_hex, 19, 6))::bit(24)::bigint;
    ELSIF (now_ms OPERATOR(pg_catalog.+) 10000) OPERATOR(pg_catalog.>=) ts THEN
      -- The same millisecond, or the clock is behind the last ID by 10 s
      -- or less: count on. A carry out of counter_lo increments counter_hi,
      -- and one out of counter_hi moves to the next millisecond.
      counters := counters OPERATOR(pg_catalog.+) 1;
      IF counters OPERATOR(pg_catalog.>) 281474976710655 THEN
        IF ts OPERATOR(pg_catalog.=) 281474976710655 THEN
          RAISE EXCEPTION 'scru128_generate: the counters overflowed at the largest timestamp'
            USING ERRCODE = 'datetime_field_overflow';
        END IF;
        ts := ts OPERATOR(pg_catalog.+) 1;
        counters := ('x' OPERATOR(pg_catalog.||) pg_catalog.substr(random_hex, 19, 6))::bit(24)::bigint;
        -- At the edge of the allowance, the next millisecond would pass
        -- it: wait for the clock to allow it (a millisecond at most).
        WHILE ts OPERATOR(pg_catalog.>) (now_ms OPERATOR(pg_catalog.+) 10000) LOOP
          PERFORM pg_catalog.pg_sleep(0.001);
          now_ms := (('x' OPERATOR(pg_catalog.||) pg_catalog.encode(pg_catalog.timestamptz_send(pg_catalog.clock_timestamp()), 'hex'))::bit(64)::bigint OPERATOR(pg_catalog.+) 946684800000000) OPERATOR(pg_catalog./) 1000;
        END LOOP;
      END IF;
    ELSE
      -- The clock went back by more than 10 s: start over at the clock, as
      -- a new generator would.
      ts := now_ms;
      counters := ('x' OPERATOR(pg_catalog.||) pg_catalog.substr(random_hex, 19, 12))::bit(48)::bigint;
      renewed := now_ms;
    END IF;
    IF (ts OPERATOR(pg_catalog.-) renewed) OPERATOR(pg_catalog.>=) 1000 THEN
      -- counter_hi lives a second.
      counters := (('x' OPERATOR(pg_catalog.||) pg_catalog.substr(random_hex, 25, 6))::bit(24)::bigint OPERATOR(pg_catalog.<<) 24) OPERATOR(pg_catalog.|) (counters OPERATOR(pg_catalog.&) 16777215);
      renewed := ts;
    END IF;
  ELSE
    -- No state this call can trust: a new session, or one whose state a
    -- rollback, RESET ALL, DISCARD ALL or another writer undid or replaced,
    -- or the start of the session's next million numbers. Every ID the
    -- session minted is at or below the high-water mark: start above it.
    SELECT s.last_value INTO high FROM __scru128_schema__.scru128_generate_high s;
    LOOP
      IF high OPERATOR(pg_catalog.<) now_ms THEN
        ts := now_ms;
        EXIT;
      ELSIF high OPERATOR(pg_catalog.<=) (now_ms OPERATOR(pg_catalog.+) 1) THEN
        -- This millisecond or the next (a carry): wait for the one after.
        PERFORM pg_catalog.pg_sleep((high OPERATOR(pg_catalog.+) 1 OPERATOR(pg_catalog.-) now_ms) OPERATOR(pg_catalog./) 1000.0);
      ELSIF (high OPERATOR(pg_catalog.+) 1) OPERATOR(pg_catalog.<=) (now_ms OPERATOR(pg_catalog.+) 10000) THEN
        -- The mark is ahead of the clock, which went back: count on from it.
        ts := high OPERATOR(pg_catalog.+) 1;
        EXIT;
      ELSIF (high OPERATOR(pg_catalog.+) 1) OPERATOR(pg_catalog.<=) (now_ms OPERATOR(pg_catalog.+) 10002) THEN
        -- Fresh starts during a step back passed the allowance by a
        -- millisecond or two: wait for the clock.
        PERFORM pg_catalog.pg_sleep(0.001);
      ELSE
        -- The clock went back by more than 10 s: start at the clock.
        ts := now_ms;
        EXIT;
      END IF;
      now_ms := (('x' OPERATOR(pg_catalog.||) pg_catalog.encode(pg_catalog.timestamptz_send(pg_catalog.clock_timestamp()), 'hex'))::bit(64)::bigint OPERATOR(pg_catalog.+) 946684800000000) OPERATOR(pg_catalog./) 1000;
    END LOOP;
    -- A new generator: both counters at random.
    counters := ('x' OPERATOR(pg_catalog.||) pg_catalog.substr(random_hex, 19, 12))::bit(48)::bigint;
    renewed := ts;
  END IF;

  -- The high-water mark must be at or above this ID before it leaves.
  IF ts OPERATOR(pg_catalog.>) high THEN
    SELECT s.last_value INTO mark FROM __scru128_schema__.scru128_generate_high s;
    IF mark OPERATOR(pg_catalog.<) ts THEN
      BEGIN
        LOCK TABLE __scru128_schema__.scru128_generate_lock IN EXCLUSIVE MODE;
        SELECT s.last_value INTO mark FROM __scru128_schema__.scru128_generate_high s;
        IF mark OPERATOR(pg_catalog.<) ts THEN
          PERFORM pg_catalog.setval('__scru128_schema__.scru128_generate_high'::pg_catalog.regclass, ts);
          mark := ts;
        END IF;
        -- Leave the subtransaction, which lets go of the lock; the
        -- sequence keeps its value.
        RAISE SQLSTATE 'SC128';
      EXCEPTION WHEN SQLSTATE 'SC128' THEN
        NULL;
      END;
    END IF;
    high := mark;
  END IF;

  state := ts::pg_catalog.text OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) counters::pg_catalog.text OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) renewed::pg_catalog.text OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) high::pg_catalog.text;
  PERFORM pg_catalog.set_config(setting, state OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) pg_catalog.left(pg_catalog.encode(pg_catalog.sha256(
    pg_catalog.int8send(n) OPERATOR(pg_catalog.||) pg_catalog.convert_to(state, 'SQL_ASCII')), 'hex'), 32), false);
  RETURN (pg_catalog.lpad(pg_catalog.to_hex(ts), 12, '0') OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.to_hex(counters), 12, '0') OPERATOR(pg_catalog.||) pg_catalog.left(random_hex, 8))::pg_catalog.uuid;
END
$body$
$function$,
    -- In string literals the schema's name needs its quotes doubled.
    '''__scru128_schema__.', '''' OPERATOR(pg_catalog.||) pg_catalog.replace(ident, '''', '''''') OPERATOR(pg_catalog.||) '.'),
    '__scru128_schema__', ident);
END
$install$;

COMMENT ON FUNCTION scru128_generate() IS
  'A new SCRU128 ID at the server''s time: within a session above every one before, rolled-back ones too, whatever a role sets (docs/postgresql-functions.md has the limits); unique across sessions by its random bits.';
COMMENT ON SEQUENCE scru128_generate_calls IS
  'Numbers the calls of scru128_generate(), from a secret start, outside transactions: the key to the tag of each session''s state.';
COMMENT ON SEQUENCE scru128_generate_high IS
  'At or above the timestamp of every ID scru128_generate() minted on this server: where a session that lost its state starts again.';
COMMENT ON TABLE scru128_generate_lock IS
  'Locked by scru128_generate() to raise scru128_generate_high one session at a time.';


-- ========================================================================
-- ULID: a uuid column holds the 16 bytes, as for SCRU128.
-- ========================================================================

CREATE OR REPLACE FUNCTION ulid_to_text(id pg_catalog.uuid) RETURNS pg_catalog.text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
-- 26 Crockford Base32 digits of five bits each, the first holding the top
-- three: digit k is bits 125-5k and up of the value, and digit 13
-- straddles the two 64-bit halves.
DECLARE
  hex pg_catalog.text := pg_catalog.encode(pg_catalog.uuid_send(id), 'hex');
  hi bigint := ('x' OPERATOR(pg_catalog.||) pg_catalog.left(hex, 16))::bit(64)::bigint;
  lo bigint := ('x' OPERATOR(pg_catalog.||) pg_catalog.right(hex, 16))::bit(64)::bigint;
  alphabet CONSTANT pg_catalog.bytea := '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
BEGIN
  RETURN pg_catalog.encode(
    pg_catalog.substring(alphabet, ((hi OPERATOR(pg_catalog.>>) 61) OPERATOR(pg_catalog.&) 7)::int OPERATOR(pg_catalog.+) 1, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, ((hi OPERATOR(pg_catalog.>>) 56) OPERATOR(pg_catalog.&) 31)::int OPERATOR(pg_catalog.+) 1, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, ((hi OPERATOR(pg_catalog.>>) 51) OPERATOR(pg_catalog.&) 31)::int OPERATOR(pg_catalog.+) 1, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, ((hi OPERATOR(pg_catalog.>>) 46) OPERATOR(pg_catalog.&) 31)::int OPERATOR(pg_catalog.+) 1, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, ((hi OPERATOR(pg_catalog.>>) 41) OPERATOR(pg_catalog.&) 31)::int OPERATOR(pg_catalog.+) 1, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, ((hi OPERATOR(pg_catalog.>>) 36) OPERATOR(pg_catalog.&) 31)::int OPERATOR(pg_catalog.+) 1, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, ((hi OPERATOR(pg_catalog.>>) 31) OPERATOR(pg_catalog.&) 31)::int OPERATOR(pg_catalog.+) 1, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, ((hi OPERATOR(pg_catalog.>>) 26) OPERATOR(pg_catalog.&) 31)::int OPERATOR(pg_catalog.+) 1, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, ((hi OPERATOR(pg_catalog.>>) 21) OPERATOR(pg_catalog.&) 31)::int OPERATOR(pg_catalog.+) 1, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, ((hi OPERATOR(pg_catalog.>>) 16) OPERATOR(pg_catalog.&) 31)::int OPERATOR(pg_catalog.+) 1, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, ((hi OPERATOR(pg_catalog.>>) 11) OPERATOR(pg_catalog.&) 31)::int OPERATOR(pg_catalog.+) 1, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, ((hi OPERATOR(pg_catalog.>>) 6) OPERATOR(pg_catalog.&) 31)::int OPERATOR(pg_catalog.+) 1, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, ((hi OPERATOR(pg_catalog.>>) 1) OPERATOR(pg_catalog.&) 31)::int OPERATOR(pg_catalog.+) 1, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (((hi OPERATOR(pg_catalog.&) 1) OPERATOR(pg_catalog.<<) 4) OPERATOR(pg_catalog.|) ((lo OPERATOR(pg_catalog.>>) 60) OPERATOR(pg_catalog.&) 15))::int OPERATOR(pg_catalog.+) 1, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, ((lo OPERATOR(pg_catalog.>>) 55) OPERATOR(pg_catalog.&) 31)::int OPERATOR(pg_catalog.+) 1, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, ((lo OPERATOR(pg_catalog.>>) 50) OPERATOR(pg_catalog.&) 31)::int OPERATOR(pg_catalog.+) 1, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, ((lo OPERATOR(pg_catalog.>>) 45) OPERATOR(pg_catalog.&) 31)::int OPERATOR(pg_catalog.+) 1, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, ((lo OPERATOR(pg_catalog.>>) 40) OPERATOR(pg_catalog.&) 31)::int OPERATOR(pg_catalog.+) 1, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, ((lo OPERATOR(pg_catalog.>>) 35) OPERATOR(pg_catalog.&) 31)::int OPERATOR(pg_catalog.+) 1, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, ((lo OPERATOR(pg_catalog.>>) 30) OPERATOR(pg_catalog.&) 31)::int OPERATOR(pg_catalog.+) 1, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, ((lo OPERATOR(pg_catalog.>>) 25) OPERATOR(pg_catalog.&) 31)::int OPERATOR(pg_catalog.+) 1, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, ((lo OPERATOR(pg_catalog.>>) 20) OPERATOR(pg_catalog.&) 31)::int OPERATOR(pg_catalog.+) 1, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, ((lo OPERATOR(pg_catalog.>>) 15) OPERATOR(pg_catalog.&) 31)::int OPERATOR(pg_catalog.+) 1, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, ((lo OPERATOR(pg_catalog.>>) 10) OPERATOR(pg_catalog.&) 31)::int OPERATOR(pg_catalog.+) 1, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, ((lo OPERATOR(pg_catalog.>>) 5) OPERATOR(pg_catalog.&) 31)::int OPERATOR(pg_catalog.+) 1, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (lo OPERATOR(pg_catalog.&) 31)::int OPERATOR(pg_catalog.+) 1, 1),
    'escape');
END
$$;

COMMENT ON FUNCTION ulid_to_text(pg_catalog.uuid) IS
  'The 26-digit upper-case Crockford Base32 text of the ULID held in a uuid.';


CREATE OR REPLACE FUNCTION ulid_from_text(id pg_catalog.text) RETURNS pg_catalog.uuid
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
-- The first digit holds three bits, so it is 0-7; the next 25 are read in
-- groups of six (30 bits), with digit 13 between the halves.
DECLARE
  b pg_catalog.bytea;
  -- Byte c of this table is 48 plus the value of the digit whose byte is c
  -- (0-9 and the letters but I, L, O and U, in either case, are 0-31; the
  -- bytes of other characters are never looked up). A group of six digits
  -- thus comes out 48 * (32^5 + 32^4 + 32^3 + 32^2 + 32 + 1) = 1662567984
  -- too high, taken off once.
  value CONSTANT pg_catalog.bytea := '000000000000000000000000000000000000000000000000'
    '01234567890000000:;<=>?@A0BC0DE0FGHIJ0KLMNO000000:;<=>?@A0BC0DE0FGHIJ0KLMNO';
  lead bigint; mid bigint; g1 bigint; g2 bigint; g3 bigint; g4 bigint;
  len int; bad int;
BEGIN
  IF id OPERATOR(pg_catalog.!~) '^[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}$' THEN
    -- The bytes of the text in UTF-8, as for SCRU128.
    IF pg_catalog.getdatabaseencoding() OPERATOR(pg_catalog.=) 'UTF8' OR pg_catalog.getdatabaseencoding() OPERATOR(pg_catalog.=) 'SQL_ASCII' THEN
      b := pg_catalog.convert_to(id, 'SQL_ASCII');
    ELSE
      b := pg_catalog.convert_to(id, 'UTF8');
    END IF;
    len := pg_catalog.length(b);
    IF len OPERATOR(pg_catalog.<>) 26 THEN
      RAISE EXCEPTION 'invalid ULID text: length % bytes, want 26', len
        USING ERRCODE = 'invalid_text_representation';
    END IF;
    bad := pg_catalog.length(pg_catalog.substring(id, '^[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]*'));
    IF bad OPERATOR(pg_catalog.=) 26 THEN
      RAISE EXCEPTION 'invalid ULID text %: above the largest ULID, 7ZZZZZZZZZZZZZZZZZZZZZZZZZ (2^128-1)',
        pg_catalog.to_json(id)::pg_catalog.text
        USING ERRCODE = 'invalid_text_representation';
    END IF;
    RAISE EXCEPTION 'invalid ULID text %: invalid character % (byte 0x%) at offset %',
      pg_catalog.to_json(id)::pg_catalog.text, pg_catalog.to_json(pg_catalog.substr(id, bad OPERATOR(pg_catalog.+) 1, 1))::pg_catalog.text,
      pg_catalog.lpad(pg_catalog.to_hex(pg_catalog.get_byte(b, bad)), 2, '0'), bad
      USING ERRCODE = 'invalid_text_representation',
            DETAIL = 'A ULID text is 26 Crockford Base32 digits, 0-9 and the letters A-Z but I, L, O and U, in either case; the offset counts bytes from 0.';
  END IF;
  b := pg_catalog.convert_to(id, 'SQL_ASCII');
  lead := pg_catalog.get_byte(value, pg_catalog.get_byte(b, 0)) OPERATOR(pg_catalog.-) 48;
  g1 := (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 1)) OPERATOR(pg_catalog.*) 33554432::bigint) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 2)) OPERATOR(pg_catalog.*) 1048576) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 3)) OPERATOR(pg_catalog.*) 32768) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 4)) OPERATOR(pg_catalog.*) 1024) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 5)) OPERATOR(pg_catalog.*) 32) OPERATOR(pg_catalog.+)
        pg_catalog.get_byte(value, pg_catalog.get_byte(b, 6)) OPERATOR(pg_catalog.-) 1662567984;
  g2 := (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 7)) OPERATOR(pg_catalog.*) 33554432::bigint) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 8)) OPERATOR(pg_catalog.*) 1048576) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 9)) OPERATOR(pg_catalog.*) 32768) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 10)) OPERATOR(pg_catalog.*) 1024) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 11)) OPERATOR(pg_catalog.*) 32) OPERATOR(pg_catalog.+)
        pg_catalog.get_byte(value, pg_catalog.get_byte(b, 12)) OPERATOR(pg_catalog.-) 1662567984;
  mid := pg_catalog.get_byte(value, pg_catalog.get_byte(b, 13)) OPERATOR(pg_catalog.-) 48;
  g3 := (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 14)) OPERATOR(pg_catalog.*) 33554432::bigint) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 15)) OPERATOR(pg_catalog.*) 1048576) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 16)) OPERATOR(pg_catalog.*) 32768) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 17)) OPERATOR(pg_catalog.*) 1024) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 18)) OPERATOR(pg_catalog.*) 32) OPERATOR(pg_catalog.+)
        pg_catalog.get_byte(value, pg_catalog.get_byte(b, 19)) OPERATOR(pg_catalog.-) 1662567984;
  g4 := (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 20)) OPERATOR(pg_catalog.*) 33554432::bigint) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 21)) OPERATOR(pg_catalog.*) 1048576) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 22)) OPERATOR(pg_catalog.*) 32768) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 23)) OPERATOR(pg_catalog.*) 1024) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 24)) OPERATOR(pg_catalog.*) 32) OPERATOR(pg_catalog.+)
        pg_catalog.get_byte(value, pg_catalog.get_byte(b, 25)) OPERATOR(pg_catalog.-) 1662567984;
  RETURN (pg_catalog.lpad(pg_catalog.to_hex((lead OPERATOR(pg_catalog.<<) 61) OPERATOR(pg_catalog.|) (g1 OPERATOR(pg_catalog.<<) 31) OPERATOR(pg_catalog.|) (g2 OPERATOR(pg_catalog.<<) 1) OPERATOR(pg_catalog.|) (mid OPERATOR(pg_catalog.>>) 4)), 16, '0') OPERATOR(pg_catalog.||)
          pg_catalog.lpad(pg_catalog.to_hex(((mid OPERATOR(pg_catalog.&) 15) OPERATOR(pg_catalog.<<) 60) OPERATOR(pg_catalog.|) (g3 OPERATOR(pg_catalog.<<) 30) OPERATOR(pg_catalog.|) g4), 16, '0'))::pg_catalog.uuid;
END
$$;

COMMENT ON FUNCTION ulid_from_text(pg_catalog.text) IS
  'The ULID of a 26-digit Crockford Base32 text, in either case, as a uuid.';


CREATE OR REPLACE FUNCTION ulid_time(id pg_catalog.uuid) RETURNS pg_catalog.timestamptz
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
-- As scru128_time: the top 48 bits are Unix milliseconds.
DECLARE
  ms bigint := ('x' OPERATOR(pg_catalog.||) pg_catalog.left(pg_catalog.encode(pg_catalog.uuid_send(id), 'hex'), 12))::bit(48)::bigint;
BEGIN
  RETURN pg_catalog.to_timestamp(ms OPERATOR(pg_catalog./) 1000) OPERATOR(pg_catalog.+) ((ms OPERATOR(pg_catalog.%) 1000) OPERATOR(pg_catalog.*) interval '1 millisecond');
END
$$;

COMMENT ON FUNCTION ulid_time(pg_catalog.uuid) IS
  'The time of a ULID: its timestamp, in milliseconds.';


CREATE OR REPLACE FUNCTION ulid_min_at(t pg_catalog.timestamptz) RETURNS pg_catalog.uuid
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
-- As scru128_min_at: the same 48-bit timestamp, then 80 zero bits.
DECLARE
  us bigint := ('x' OPERATOR(pg_catalog.||) pg_catalog.encode(pg_catalog.timestamptz_send(t), 'hex'))::bit(64)::bigint;
BEGIN
  IF us OPERATOR(pg_catalog.<) -946684800000000 OR us OPERATOR(pg_catalog.>=) (281474976710656000 OPERATOR(pg_catalog.-) 946684800000000) THEN
    RAISE EXCEPTION 'a ULID cannot hold the time %: it holds 1970-01-01 to 10889-08-02 05:31:50.655 UTC', t
      USING ERRCODE = 'datetime_field_overflow';
  END IF;
  RETURN (pg_catalog.lpad(pg_catalog.to_hex((us OPERATOR(pg_catalog.+) 946684800000000) OPERATOR(pg_catalog./) 1000), 12, '0') OPERATOR(pg_catalog.||) '00000000000000000000')::pg_catalog.uuid;
END
$$;

COMMENT ON FUNCTION ulid_min_at(pg_catalog.timestamptz) IS
  'The smallest ULID of the millisecond that holds t: id BETWEEN ulid_min_at(t0) AND ulid_max_at(t1) selects the ULIDs of t0 to t1.';


CREATE OR REPLACE FUNCTION ulid_max_at(t pg_catalog.timestamptz) RETURNS pg_catalog.uuid
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
  us bigint := ('x' OPERATOR(pg_catalog.||) pg_catalog.encode(pg_catalog.timestamptz_send(t), 'hex'))::bit(64)::bigint;
BEGIN
  IF us OPERATOR(pg_catalog.<) -946684800000000 OR us OPERATOR(pg_catalog.>=) (281474976710656000 OPERATOR(pg_catalog.-) 946684800000000) THEN
    RAISE EXCEPTION 'a ULID cannot hold the time %: it holds 1970-01-01 to 10889-08-02 05:31:50.655 UTC', t
      USING ERRCODE = 'datetime_field_overflow';
  END IF;
  RETURN (pg_catalog.lpad(pg_catalog.to_hex((us OPERATOR(pg_catalog.+) 946684800000000) OPERATOR(pg_catalog./) 1000), 12, '0') OPERATOR(pg_catalog.||) 'ffffffffffffffffffff')::pg_catalog.uuid;
END
$$;

COMMENT ON FUNCTION ulid_max_at(pg_catalog.timestamptz) IS
  'The largest ULID of the millisecond that holds t.';


-- ========================================================================
-- SCRU64: a bigint column holds the ID, a value from 0 to 36^12-1.
-- ========================================================================

CREATE OR REPLACE FUNCTION scru64_to_text(id bigint) RETURNS pg_catalog.text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
-- Twelve Base36 digits, as two halves below 36^6.
DECLARE
  g1 bigint;
  g0 bigint;
  alphabet CONSTANT pg_catalog.bytea := '0123456789abcdefghijklmnopqrstuvwxyz';
BEGIN
  IF id OPERATOR(pg_catalog.<) 0 OR id OPERATOR(pg_catalog.>) 4738381338321616895 THEN
    RAISE EXCEPTION 'SCRU64 ID % out of range: an ID is 0 to 4738381338321616895 (36^12-1)', id
      USING ERRCODE = 'numeric_value_out_of_range';
  END IF;
  g1 := id OPERATOR(pg_catalog./) 2176782336;
  g0 := id OPERATOR(pg_catalog.%) 2176782336;
  RETURN pg_catalog.encode(
    pg_catalog.substring(alphabet, (g1 OPERATOR(pg_catalog./) 60466176 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g1 OPERATOR(pg_catalog./) 1679616 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g1 OPERATOR(pg_catalog./) 46656 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g1 OPERATOR(pg_catalog./) 1296 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g1 OPERATOR(pg_catalog./) 36 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g1 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g0 OPERATOR(pg_catalog./) 60466176 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g0 OPERATOR(pg_catalog./) 1679616 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g0 OPERATOR(pg_catalog./) 46656 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g0 OPERATOR(pg_catalog./) 1296 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g0 OPERATOR(pg_catalog./) 36 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1) OPERATOR(pg_catalog.||)
    pg_catalog.substring(alphabet, (g0 OPERATOR(pg_catalog.%) 36 OPERATOR(pg_catalog.+) 1)::int, 1),
    'escape');
END
$$;

COMMENT ON FUNCTION scru64_to_text(bigint) IS
  'The 12-digit lower-case Base36 text of a SCRU64 ID.';


CREATE OR REPLACE FUNCTION scru64_from_text(id pg_catalog.text) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
-- Every 12-digit text is in range: zzzzzzzzzzzz is the largest ID.
DECLARE
  b pg_catalog.bytea;
  -- As in scru128_from_text: byte c is 48 plus the value of the digit
  -- whose byte is c, and a group of six comes out 2985301488 too high.
  value CONSTANT pg_catalog.bytea := '000000000000000000000000000000000000000000000000'
    '01234567890000000:;<=>?@ABCDEFGHIJKLMNOPQRS000000:;<=>?@ABCDEFGHIJKLMNOPQRS';
  g1 bigint;
  g0 bigint;
  len int; bad int;
BEGIN
  IF id OPERATOR(pg_catalog.!~) '^[0-9A-Za-z]{12}$' THEN
    -- The bytes of the text in UTF-8, as for SCRU128.
    IF pg_catalog.getdatabaseencoding() OPERATOR(pg_catalog.=) 'UTF8' OR pg_catalog.getdatabaseencoding() OPERATOR(pg_catalog.=) 'SQL_ASCII' THEN
      b := pg_catalog.convert_to(id, 'SQL_ASCII');
    ELSE
      b := pg_catalog.convert_to(id, 'UTF8');
    END IF;
    len := pg_catalog.length(b);
    IF len OPERATOR(pg_catalog.<>) 12 THEN
      RAISE EXCEPTION 'invalid SCRU64 text: length % bytes, want 12', len
        USING ERRCODE = 'invalid_text_representation';
    END IF;
    bad := pg_catalog.length(pg_catalog.substring(id, '^[0-9A-Za-z]*'));
    RAISE EXCEPTION 'invalid SCRU64 text %: invalid character % (byte 0x%) at offset %',
      pg_catalog.to_json(id)::pg_catalog.text, pg_catalog.to_json(pg_catalog.substr(id, bad OPERATOR(pg_catalog.+) 1, 1))::pg_catalog.text,
      pg_catalog.lpad(pg_catalog.to_hex(pg_catalog.get_byte(b, bad)), 2, '0'), bad
      USING ERRCODE = 'invalid_text_representation',
            DETAIL = 'A SCRU64 text is 12 digits from 0-9, a-z and A-Z; the offset counts bytes from 0.';
  END IF;
  b := pg_catalog.convert_to(id, 'SQL_ASCII');
  g1 := (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 0)) OPERATOR(pg_catalog.*) 60466176::bigint) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 1)) OPERATOR(pg_catalog.*) 1679616) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 2)) OPERATOR(pg_catalog.*) 46656) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 3)) OPERATOR(pg_catalog.*) 1296) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 4)) OPERATOR(pg_catalog.*) 36) OPERATOR(pg_catalog.+)
        pg_catalog.get_byte(value, pg_catalog.get_byte(b, 5)) OPERATOR(pg_catalog.-) 2985301488;
  g0 := (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 6)) OPERATOR(pg_catalog.*) 60466176::bigint) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 7)) OPERATOR(pg_catalog.*) 1679616) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 8)) OPERATOR(pg_catalog.*) 46656) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 9)) OPERATOR(pg_catalog.*) 1296) OPERATOR(pg_catalog.+)
        (pg_catalog.get_byte(value, pg_catalog.get_byte(b, 10)) OPERATOR(pg_catalog.*) 36) OPERATOR(pg_catalog.+)
        pg_catalog.get_byte(value, pg_catalog.get_byte(b, 11)) OPERATOR(pg_catalog.-) 2985301488;
  RETURN (g1 OPERATOR(pg_catalog.*) 2176782336) OPERATOR(pg_catalog.+) g0;
END
$$;

COMMENT ON FUNCTION scru64_from_text(pg_catalog.text) IS
  'The SCRU64 ID of a 12-digit Base36 text, in either case.';


CREATE OR REPLACE FUNCTION scru64_time(id bigint) RETURNS pg_catalog.timestamptz
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
-- The timestamp is the value above the 24-bit node_ctr field, in ticks of
-- 256 ms; the time is the start of the tick.
DECLARE
  ms bigint;
BEGIN
  IF id OPERATOR(pg_catalog.<) 0 OR id OPERATOR(pg_catalog.>) 4738381338321616895 THEN
    RAISE EXCEPTION 'SCRU64 ID % out of range: an ID is 0 to 4738381338321616895 (36^12-1)', id
      USING ERRCODE = 'numeric_value_out_of_range';
  END IF;
  ms := (id OPERATOR(pg_catalog.>>) 24) OPERATOR(pg_catalog.<<) 8;
  RETURN pg_catalog.to_timestamp(ms OPERATOR(pg_catalog./) 1000) OPERATOR(pg_catalog.+) ((ms OPERATOR(pg_catalog.%) 1000) OPERATOR(pg_catalog.*) interval '1 millisecond');
END
$$;

COMMENT ON FUNCTION scru64_time(bigint) IS
  'The time of a SCRU64 ID: the start of its 256-millisecond tick.';


CREATE OR REPLACE FUNCTION scru64_min_at(t pg_catalog.timestamptz) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
-- The tick that holds t is its Unix milliseconds >> 8; the largest tick
-- is 282429536480 (36^12/2^24 - 1), which ends at Unix millisecond
-- 282429536481 * 256 - 1. See scru128_min_at for timestamptz_send.
DECLARE
  us bigint := ('x' OPERATOR(pg_catalog.||) pg_catalog.encode(pg_catalog.timestamptz_send(t), 'hex'))::bit(64)::bigint;
BEGIN
  IF us OPERATOR(pg_catalog.<) -946684800000000 OR us OPERATOR(pg_catalog.>=) (72301961339136000 OPERATOR(pg_catalog.-) 946684800000000) THEN
    RAISE EXCEPTION 'a SCRU64 ID cannot hold the time %: it holds 1970-01-01 to 4261-02-27 06:08:59.135 UTC', t
      USING ERRCODE = 'datetime_field_overflow';
  END IF;
  RETURN (((us OPERATOR(pg_catalog.+) 946684800000000) OPERATOR(pg_catalog./) 1000) OPERATOR(pg_catalog.>>) 8) OPERATOR(pg_catalog.<<) 24;
END
$$;

COMMENT ON FUNCTION scru64_min_at(pg_catalog.timestamptz) IS
  'The smallest SCRU64 ID of the 256-ms tick that holds t: id BETWEEN scru64_min_at(t0) AND scru64_max_at(t1) selects the IDs of the ticks of t0 to t1.';


CREATE OR REPLACE FUNCTION scru64_max_at(t pg_catalog.timestamptz) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
  us bigint := ('x' OPERATOR(pg_catalog.||) pg_catalog.encode(pg_catalog.timestamptz_send(t), 'hex'))::bit(64)::bigint;
BEGIN
  IF us OPERATOR(pg_catalog.<) -946684800000000 OR us OPERATOR(pg_catalog.>=) (72301961339136000 OPERATOR(pg_catalog.-) 946684800000000) THEN
    RAISE EXCEPTION 'a SCRU64 ID cannot hold the time %: it holds 1970-01-01 to 4261-02-27 06:08:59.135 UTC', t
      USING ERRCODE = 'datetime_field_overflow';
  END IF;
  RETURN ((((us OPERATOR(pg_catalog.+) 946684800000000) OPERATOR(pg_catalog./) 1000) OPERATOR(pg_catalog.>>) 8) OPERATOR(pg_catalog.<<) 24) OPERATOR(pg_catalog.|) 16777215;
END
$$;

COMMENT ON FUNCTION scru64_max_at(pg_catalog.timestamptz) IS
  'The largest SCRU64 ID of the 256-ms tick that holds t.';
