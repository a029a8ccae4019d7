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
  -- The relations an earlier version of scru128_generate() kept, which an
  -- upgrade drops, and their row types: another role's of those names
  -- would make the drop fail, or be mistaken for the file's.
  FOR f IN
    SELECT pg_catalog.format('relation %I.%I', schema, c.relname) AS what, pg_catalog.pg_get_userbyid(c.relowner) AS owner
    FROM pg_catalog.pg_class c
    WHERE c.relnamespace OPERATOR(pg_catalog.=) pg_catalog.to_regnamespace(pg_catalog.quote_ident(schema))
      AND c.relowner OPERATOR(pg_catalog.<>) (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) current_user)
      AND pg_catalog.array_position(ARRAY['scru128_generate_calls', 'scru128_generate_high', 'scru128_generate_lock']::pg_catalog.name[], c.relname) IS NOT NULL
  LOOP
    RAISE EXCEPTION 'scru128.sql: % belongs to role %, not to %, who runs this file', f.what, f.owner, current_user
      USING HINT = 'Another role made it where the file installs: drop it, and run the file again.';
  END LOOP;
  FOR f IN
    SELECT pg_catalog.format('type %I.%I', schema, t.typname) AS what, pg_catalog.pg_get_userbyid(t.typowner) AS owner
    FROM pg_catalog.pg_type t
    WHERE t.typnamespace OPERATOR(pg_catalog.=) pg_catalog.to_regnamespace(pg_catalog.quote_ident(schema))
      AND t.typowner OPERATOR(pg_catalog.<>) (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) current_user)
      AND pg_catalog.array_position(ARRAY['scru128_generate_calls', 'scru128_generate_high', 'scru128_generate_lock']::pg_catalog.name[], t.typname) IS NOT NULL
  LOOP
    RAISE EXCEPTION 'scru128.sql: % belongs to role %, not to %, who runs this file', f.what, f.owner, current_user
      USING HINT = 'Another role made it where the file installs: drop it, and run the file again.';
  END LOOP;
  -- Whether the scru128_generate() in place before this run is one that
  -- used those relations: the upgrade below drops them only once it is
  -- not (see there).
  PERFORM pg_catalog.set_config('scru128.install_replaces_old', (EXISTS (
    SELECT FROM pg_catalog.pg_proc p
    WHERE p.oid OPERATOR(pg_catalog.=) pg_catalog.to_regprocedure(pg_catalog.quote_ident(schema) OPERATOR(pg_catalog.||) '.scru128_generate()')
      AND pg_catalog.strpos(p.prosrc, 'scru128_generate_calls') OPERATOR(pg_catalog.>) 0))::pg_catalog.text, true);
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
-- scru128_generate(): IDs minted in the server, on nothing another role
-- can read, set, lock or outwait.
-- ========================================================================
--
-- The generator keeps one value per session, in the custom setting
-- scru128.generator: the last ID's first 24 hex digits, its timestamp
-- and counters (counter_hi * 2^24 + counter_lo). The value is no
-- secret and is not trusted: any role can read and set its own sessions'
-- settings, RESET ALL and DISCARD ALL clear them, and a rollback (of a
-- transaction, to a savepoint, or of an exception block) puts back the
-- value from before. So the order within a session rests on the server's
-- clock, and the value serves only where the clock cannot:
--
--   counter_hi's top 10 bits are the microsecond within the millisecond
--     (clock_timestamp() reads microseconds; 999 < 2^10), its next bit is
--     0, and its last 13 bits and counter_lo are random, drawn when the
--     millisecond changes; within a millisecond the counters count on. A
--     call moves the microsecond field up to the clock's, keeping the
--     random bits. So an ID of a later microsecond is above every ID of
--     the session's earlier microseconds, whatever the value held or was
--     put back to: counting on from any value of this millisecond can
--     reach the next microsecond only after 2^37 calls (the 0 bit takes
--     the carries). And each call ends only once the clock has left the
--     microsecond it read, so the session's next call reads a later one.
--   The value lets the session count on where the clock is behind its
--     last ID: after a step back of the clock by up to the rollback
--     allowance (10 s, the specification's), and after a counter
--     overflow, which cannot happen unless the value was set so. A value
--     more than the allowance ahead of the clock, or one that does not
--     parse, is taken for none: the call starts at the clock.
--
-- So a role that sets the value steers only its own session's IDs, and no
-- further from the clock than a step of the clock within the allowance
-- would; it cannot put an ID below one its session minted from the clock
-- before (only below one minted from a value it set). Nothing crosses
-- sessions, and the function uses no table, sequence or lock: no role can
-- block a call, and calls scale with the server's cores.
--
-- Weighed and not chosen: a value tagged with a MAC over a secret call
-- number from a sequence, and a server-wide high-water mark in a sequence
-- raised under a table lock (the previous design): the planner prints the
-- tag's inputs to any role that sets debug_print_plan, pg_read_all_data
-- reads every sequence, any role can lock a table it can name (PREPARE in
-- an open transaction, or PREPARE TRANSACTION, which outlives the
-- session), and every caller queued on the lock. PostgreSQL has no place
-- a PL/pgSQL function can keep a secret that pg_read_all_data cannot read,
-- nor a per-session value that survives a rollback that no other role can
-- touch: a sequence (nextval changes the caller's lastval(), DISCARD
-- SEQUENCES forgets it, pg_write_all_data sets it) or an advisory lock
-- (one key space, which any role can take or watch in pg_locks). Nor the
-- specification's counter_hi, random for a second: then a rollback that
-- put back an earlier value of the same millisecond would mint an ID
-- below those it undid. After a lost value, the last timestamp plus one
-- fails for two losses within a millisecond; waiting for the next
-- millisecond costs a millisecond a fresh session.
--
-- What it promises, within one session: an ID is above every ID the
-- session minted before at the clock's time (rolled back or not; after
-- RESET ALL or DISCARD ALL too), as long as the clock has not gone back
-- since; and above every ID the session minted before, if the clock went
-- back by no more than the allowance and the session kept its value
-- meanwhile (no rollback undid a call, no RESET ALL or DISCARD ALL) until
-- the clock caught up. An ID's timestamp is never more than the allowance
-- ahead of the server's clock. Order between sessions is not promised:
-- uniqueness across them rests on the random bits, 13 + 24 + 32 among the
-- IDs of one millisecond and microsecond, as between any two generators.
-- The microsecond field tells when in its millisecond a session first
-- minted.

CREATE OR REPLACE FUNCTION scru128_generate() RETURNS pg_catalog.uuid
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
AS $$
-- Few statements, each evaluated without the executor's per-statement
-- cost (assignments, not PERFORM or SELECT INTO), and few distinct
-- functions: a call costs about twice a plain UUIDv7 function's, and a
-- session's first call, which plans every expression it meets and looks
-- up what each names, stays under a millisecond.
DECLARE
  -- The last ID's first 24 hex digits: its timestamp and counters.
  value pg_catalog.text := pg_catalog.current_setting('scru128.generator', true);
  clock pg_catalog.timestamptz := pg_catalog.clock_timestamp();
  -- Unix microseconds: timestamptz_send gives them since 2000-01-01.
  now_us bigint := ('x' OPERATOR(pg_catalog.||) pg_catalog.encode(pg_catalog.timestamptz_send(clock), 'hex'))::bit(64)::bigint OPERATOR(pg_catalog.+) 946684800000000;
  -- 122 random bits from the operating system's generator; hex digits 1-8
  -- and 19-30 (bytes 0-3 and 9-14) hold none of the version and variant
  -- bits.
  random_hex pg_catalog.text := pg_catalog.encode(pg_catalog.uuid_send(pg_catalog.gen_random_uuid()), 'hex');
  ts bigint;        -- the timestamp field, Unix milliseconds
  counters bigint;  -- counter_hi * 2^24 + counter_lo
BEGIN
  -- The last ID's fields, counted on by one, if the value is this
  -- function's form (24 hex digits: no cast below can fail) and within
  -- the allowance of a clock in range. In the clock's millisecond, the
  -- counters go up to its microsecond (now_us % 1000, in counter_hi's top
  -- 10 bits) at least; where the clock is behind, counting on alone.
  IF pg_catalog.octet_length(value) OPERATOR(pg_catalog.=) 24 AND value OPERATOR(pg_catalog.~) '^[0-9a-f]+$' THEN
    ts := ('x' OPERATOR(pg_catalog.||) pg_catalog.left(value, 12))::bit(48)::bigint;
    counters := ('x' OPERATOR(pg_catalog.||) pg_catalog.right(value, 12))::bit(48)::bigint OPERATOR(pg_catalog.+) 1;
    IF ts OPERATOR(pg_catalog.<) (now_us OPERATOR(pg_catalog./) 1000) OR ts OPERATOR(pg_catalog.>) (now_us OPERATOR(pg_catalog./) 1000 OPERATOR(pg_catalog.+) 10000)
        OR now_us OPERATOR(pg_catalog.<) 1000 OR now_us OPERATOR(pg_catalog.>) 281474976710655999 THEN
      ts := NULL;  -- of an earlier millisecond, or too far ahead: start at the clock
    ELSIF ts OPERATOR(pg_catalog.=) (now_us OPERATOR(pg_catalog./) 1000) THEN
      counters := pg_catalog.int8larger(counters, ((now_us OPERATOR(pg_catalog.%) 1000) OPERATOR(pg_catalog.<<) 38) OPERATOR(pg_catalog.|) (counters OPERATOR(pg_catalog.&) 274877906943));
    END IF;
  END IF;

  IF ts IS NULL THEN
    -- This millisecond's first ID: the microsecond, a 0 bit, 37 random
    -- bits.
    IF now_us OPERATOR(pg_catalog.<) 1000 OR now_us OPERATOR(pg_catalog.>) 281474976710655999 THEN
      RAISE EXCEPTION 'scru128_generate: the server''s clock reads %, outside the SCRU128 timestamp range (1970-01-01 to 10889-08-02 UTC)',
        clock
        USING ERRCODE = 'datetime_field_overflow';
    END IF;
    ts := now_us OPERATOR(pg_catalog./) 1000;
    counters := ((now_us OPERATOR(pg_catalog.%) 1000) OPERATOR(pg_catalog.<<) 38) OPERATOR(pg_catalog.|) (('x' OPERATOR(pg_catalog.||) pg_catalog.substr(random_hex, 19, 12))::bit(48)::bigint OPERATOR(pg_catalog.&) 137438953471);
  ELSIF counters OPERATOR(pg_catalog.>) 281474976710655 THEN
    -- A carry out of counter_hi moves to the next millisecond, as the
    -- specification says: counter_hi 0, counter_lo random.
    IF ts OPERATOR(pg_catalog.=) 281474976710655 THEN
      RAISE EXCEPTION 'scru128_generate: the counters overflowed at the largest timestamp'
        USING ERRCODE = 'datetime_field_overflow';
    END IF;
    ts := ts OPERATOR(pg_catalog.+) 1;
    counters := ('x' OPERATOR(pg_catalog.||) pg_catalog.substr(random_hex, 19, 6))::bit(24)::bigint;
    -- At the edge of the allowance, wait for the clock to allow it (a
    -- millisecond at most; only a value a role set gets here).
    WHILE ts OPERATOR(pg_catalog.>) (now_us OPERATOR(pg_catalog./) 1000 OPERATOR(pg_catalog.+) 10000) LOOP
      PERFORM pg_catalog.pg_sleep(0.0002);
      now_us := ('x' OPERATOR(pg_catalog.||) pg_catalog.encode(pg_catalog.timestamptz_send(pg_catalog.clock_timestamp()), 'hex'))::bit(64)::bigint OPERATOR(pg_catalog.+) 946684800000000;
    END LOOP;
  END IF;

  -- The new ID's first 24 hex digits, kept (set_config returns them).
  value := pg_catalog.set_config('scru128.generator',
    pg_catalog.lpad(pg_catalog.to_hex(ts), 12, '0') OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.to_hex(counters), 12, '0'), false);
  -- Leave only once the clock has left the microsecond read above, so that
  -- the session's next call reads a later one. (Rarely a turn: the call
  -- takes longer. Equality, not order: a clock that steps back ends it.)
  WHILE pg_catalog.clock_timestamp() OPERATOR(pg_catalog.=) clock LOOP
  END LOOP;
  RETURN (value OPERATOR(pg_catalog.||) pg_catalog.left(random_hex, 8))::pg_catalog.uuid;
END
$$;

COMMENT ON FUNCTION scru128_generate() IS
  'A new SCRU128 ID at the server''s time, above every ID the session minted before at the clock''s time; uses no table, sequence or lock (docs/postgresql-functions.md has what it promises).';

-- An upgrade from a version that kept a call counter, a high-water mark and
-- a lock table drops them, once no session can run the function that used
-- them: on the run after the one that replaced it. Dropped in the same
-- transaction as the replacement (a migration tool runs a file in one),
-- a call of the old function that began before the commit would find them
-- gone. A session in a transaction that called the old function holds a
-- lock on them until it ends (a prepared transaction, until it is
-- committed): the drop waits for it at most lock_timeout, 100 ms, during
-- which callers queue behind it, and then leaves the object, with a
-- warning, for the next run of the file.
DO $upgrade$
DECLARE
  schema CONSTANT pg_catalog.text := pg_catalog.current_schema();
  rel pg_catalog.record;
  timeout CONSTANT pg_catalog.text := pg_catalog.current_setting('lock_timeout');
BEGIN
  IF pg_catalog.current_setting('scru128.install_replaces_old') OPERATOR(pg_catalog.=) 'true' THEN
    RAISE NOTICE 'scru128.sql: replaced a scru128_generate() that used relations of its own in schema %: run the file again to drop them', schema;
    RETURN;
  END IF;
  FOR rel IN
    SELECT c.relname, c.relkind FROM pg_catalog.pg_class c
    WHERE c.relnamespace OPERATOR(pg_catalog.=) pg_catalog.to_regnamespace(pg_catalog.quote_ident(schema))
      AND pg_catalog.array_position(ARRAY['scru128_generate_calls', 'scru128_generate_high', 'scru128_generate_lock']::pg_catalog.name[], c.relname) IS NOT NULL
      AND c.relowner OPERATOR(pg_catalog.=) (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) current_user)
      AND c.relkind OPERATOR(pg_catalog.=) (CASE WHEN c.relname OPERATOR(pg_catalog.=) 'scru128_generate_lock' THEN 'r' ELSE 'S' END)::pg_catalog."char"
  LOOP
    BEGIN
      PERFORM pg_catalog.set_config('lock_timeout', '100ms', true);
      EXECUTE pg_catalog.format('DROP %s %I.%I', CASE WHEN rel.relkind OPERATOR(pg_catalog.=) 'S' THEN 'SEQUENCE' ELSE 'TABLE' END, schema, rel.relname);
      PERFORM pg_catalog.set_config('lock_timeout', timeout, true);
    EXCEPTION WHEN lock_not_available THEN
      PERFORM pg_catalog.set_config('lock_timeout', timeout, true);
      RAISE WARNING 'scru128.sql: %.% of an earlier version is in use by an open or prepared transaction: left for the next run of the file', schema, rel.relname
        USING HINT = 'Nothing uses it any more; run the file again later, or drop it when that transaction has ended.';
    END;
  END LOOP;
END
$upgrade$;

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
