-- SQL functions for SCRU128, ULID and SCRU64 IDs in PostgreSQL, from
-- github.com/fastid/scru128: convert between an ID and its text, read its
-- time, bound a range of IDs by time, and mint SCRU128 IDs in the server.
--
-- Run it once per database, and again after an upgrade (every statement
-- replaces what an earlier run made):
--
--     psql -v ON_ERROR_STOP=1 -f postgres/scru128.sql "$DATABASE_URL"
--
-- It creates its functions and one sequence in the first schema of the
-- search_path, normally public. To put them in another schema, name it for
-- the run; the functions then work by schema-qualified name from any
-- search_path:
--
--     PGOPTIONS='-c search_path=ids' psql -v ON_ERROR_STOP=1 -f postgres/scru128.sql
--
-- It is plain SQL and PL/pgSQL, needs no extension and no C, and uses
-- nothing newer than PostgreSQL 13 (gen_random_uuid() is built in since
-- 13). It is tested on PostgreSQL 15, against the Go implementation, by
-- integration/sqlfunc_test.go and integration/sqlfunc_generate_test.go.
-- docs/postgresql-functions.md is the guide.
--
-- Storage, as the Go packages bind it: a SCRU128 or a ULID is the 16 bytes
-- of a uuid column (which then sorts as the IDs do); a SCRU64 is a bigint.
--
-- Errors: text that is not an ID raises invalid_text_representation
-- (22P02), naming the length in bytes or the first bad byte and its offset,
-- counted in bytes of the UTF-8 text from 0, as the Go parsers count; a
-- bigint outside SCRU64's range raises numeric_value_out_of_range (22003);
-- a time an ID cannot hold raises datetime_field_overflow (22008). NULL in
-- gives NULL out.
--
-- The conversions avoid numeric, which is slow. They work on bigint limbs
-- sized so that every product and sum stays below 2^63, and they are
-- PL/pgSQL functions of few statements because a statement costs more than
-- an operator inside it. The operators <<, >>, & and | share one
-- precedence in PostgreSQL and bind left to right, so the expressions
-- below bracket them fully.


-- ========================================================================
-- SCRU128
-- ========================================================================

CREATE OR REPLACE FUNCTION scru128_to_text(id uuid) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
-- Long division of the 128-bit value by 36^6 gives its digits six at a
-- time, least significant first. The value is cut into five 31-bit limbs
-- (the top one holds 4 bits), so that a step divides remainder * 2^31 +
-- limb < 36^6 * 2^31 < 2^63. A step keeps quotient * 2^32 + remainder in
-- one bigint: the quotient limb is below 2^31 and the remainder below 36^6
-- < 2^32. Three passes leave a quotient below 2^35, the last seven digits.
DECLARE
  hex text := encode(uuid_send(id), 'hex');
  hi bigint := ('x' || left(hex, 16))::bit(64)::bigint;  -- bits 127-64 (as a signed bigint)
  lo bigint := ('x' || right(hex, 16))::bit(64)::bigint; -- bits 63-0
  d CONSTANT bigint := 2176782336;                       -- 36^6
  t bigint;
  s3 bigint; s2 bigint; s1 bigint; s0 bigint;            -- step results
  g0 bigint; g1 bigint; g2 bigint;                       -- digits 0-5, 6-11, 12-17
  top bigint;                                            -- digits 18-24
  alphabet CONSTANT bytea := '0123456789abcdefghijklmnopqrstuvwxyz';
BEGIN
  -- Pass 1. The limbs are bits 127-124, 123-93, 92-62, 61-31 and 30-0; the
  -- first is below 36^6, so it is the first remainder.
  t := (((hi >> 60) & 15) << 31) | ((hi >> 29) & 2147483647);
  s3 := ((t / d) << 32) | (t % d);
  t := ((s3 & 4294967295) << 31) | (((hi & 536870911) << 2) | ((lo >> 62) & 3));
  s2 := ((t / d) << 32) | (t % d);
  t := ((s2 & 4294967295) << 31) | ((lo >> 31) & 2147483647);
  s1 := ((t / d) << 32) | (t % d);
  t := ((s1 & 4294967295) << 31) | (lo & 2147483647);
  s0 := ((t / d) << 32) | (t % d);
  g0 := s0 & 4294967295;
  -- Pass 2 divides the quotient limbs s3..s0 >> 32; the first is below 16.
  t := ((s3 >> 32) << 31) | (s2 >> 32);
  s2 := ((t / d) << 32) | (t % d);
  t := ((s2 & 4294967295) << 31) | (s1 >> 32);
  s1 := ((t / d) << 32) | (t % d);
  t := ((s1 & 4294967295) << 31) | (s0 >> 32);
  s0 := ((t / d) << 32) | (t % d);
  g1 := s0 & 4294967295;
  -- Pass 3, the same on s2..s0 >> 32.
  t := ((s2 >> 32) << 31) | (s1 >> 32);
  s1 := ((t / d) << 32) | (t % d);
  t := ((s1 & 4294967295) << 31) | (s0 >> 32);
  s0 := ((t / d) << 32) | (t % d);
  g2 := s0 & 4294967295;
  top := ((s1 >> 32) << 31) | (s0 >> 32);
  RETURN encode(
    substring(alphabet FROM (top / 2176782336 + 1)::int FOR 1) ||
    substring(alphabet FROM (top / 60466176 % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (top / 1679616 % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (top / 46656 % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (top / 1296 % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (top / 36 % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (top % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (g2 / 60466176 + 1)::int FOR 1) ||
    substring(alphabet FROM (g2 / 1679616 % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (g2 / 46656 % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (g2 / 1296 % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (g2 / 36 % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (g2 % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (g1 / 60466176 + 1)::int FOR 1) ||
    substring(alphabet FROM (g1 / 1679616 % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (g1 / 46656 % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (g1 / 1296 % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (g1 / 36 % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (g1 % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (g0 / 60466176 + 1)::int FOR 1) ||
    substring(alphabet FROM (g0 / 1679616 % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (g0 / 46656 % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (g0 / 1296 % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (g0 / 36 % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (g0 % 36 + 1)::int FOR 1),
    'escape');
END
$$;

COMMENT ON FUNCTION scru128_to_text(uuid) IS
  'The 25-digit lower-case Base36 text of the SCRU128 ID held in a uuid.';



CREATE OR REPLACE FUNCTION scru128_from_text(id text) RETURNS uuid
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
  b bytea;
  -- A digit's value is its index in this alphabet, modulo 36.
  alphabet CONSTANT bytea := '0123456789abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  d CONSTANT bigint := 2176782336;  -- 36^6
  m CONSTANT bigint := 2147483647;  -- 2^31-1, a limb
  lead bigint; g1 bigint; g2 bigint; g3 bigint; g4 bigint;
  x0 bigint; y0 bigint; y1 bigint; z0 bigint; z1 bigint; z2 bigint;
  w0 bigint; w1 bigint; w2 bigint; w3 bigint;
  len int; bad int;
BEGIN
  IF id !~ '^[0-9A-Za-z]{25}$' THEN
    len := octet_length(convert_to(id, 'UTF8'));
    IF len <> 25 THEN
      RAISE EXCEPTION 'invalid SCRU128 text: length % bytes, want 25', len
        USING ERRCODE = 'invalid_text_representation';
    END IF;
    bad := length(substring(id FROM '^[0-9A-Za-z]*'));
    RAISE EXCEPTION 'invalid SCRU128 text %: invalid character % (byte 0x%) at offset %',
      to_json(id)::text, to_json(substr(id, bad + 1, 1))::text,
      lpad(to_hex(get_byte(convert_to(id, 'UTF8'), bad)), 2, '0'), bad
      USING ERRCODE = 'invalid_text_representation',
            DETAIL = 'A SCRU128 text is 25 digits from 0-9, a-z and A-Z; the offset counts bytes from 0.';
  END IF;
  b := convert_to(id, 'UTF8');
  lead := (position(substring(b FROM 1 FOR 1) IN alphabet) - 1) % 36;
  g1 := (position(substring(b FROM 2 FOR 1) IN alphabet) - 1) % 36 * 60466176::bigint +
        (position(substring(b FROM 3 FOR 1) IN alphabet) - 1) % 36 * 1679616 +
        (position(substring(b FROM 4 FOR 1) IN alphabet) - 1) % 36 * 46656 +
        (position(substring(b FROM 5 FOR 1) IN alphabet) - 1) % 36 * 1296 +
        (position(substring(b FROM 6 FOR 1) IN alphabet) - 1) % 36 * 36 +
        (position(substring(b FROM 7 FOR 1) IN alphabet) - 1) % 36;
  g2 := (position(substring(b FROM 8 FOR 1) IN alphabet) - 1) % 36 * 60466176::bigint +
        (position(substring(b FROM 9 FOR 1) IN alphabet) - 1) % 36 * 1679616 +
        (position(substring(b FROM 10 FOR 1) IN alphabet) - 1) % 36 * 46656 +
        (position(substring(b FROM 11 FOR 1) IN alphabet) - 1) % 36 * 1296 +
        (position(substring(b FROM 12 FOR 1) IN alphabet) - 1) % 36 * 36 +
        (position(substring(b FROM 13 FOR 1) IN alphabet) - 1) % 36;
  g3 := (position(substring(b FROM 14 FOR 1) IN alphabet) - 1) % 36 * 60466176::bigint +
        (position(substring(b FROM 15 FOR 1) IN alphabet) - 1) % 36 * 1679616 +
        (position(substring(b FROM 16 FOR 1) IN alphabet) - 1) % 36 * 46656 +
        (position(substring(b FROM 17 FOR 1) IN alphabet) - 1) % 36 * 1296 +
        (position(substring(b FROM 18 FOR 1) IN alphabet) - 1) % 36 * 36 +
        (position(substring(b FROM 19 FOR 1) IN alphabet) - 1) % 36;
  g4 := (position(substring(b FROM 20 FOR 1) IN alphabet) - 1) % 36 * 60466176::bigint +
        (position(substring(b FROM 21 FOR 1) IN alphabet) - 1) % 36 * 1679616 +
        (position(substring(b FROM 22 FOR 1) IN alphabet) - 1) % 36 * 46656 +
        (position(substring(b FROM 23 FOR 1) IN alphabet) - 1) % 36 * 1296 +
        (position(substring(b FROM 24 FOR 1) IN alphabet) - 1) % 36 * 36 +
        (position(substring(b FROM 25 FOR 1) IN alphabet) - 1) % 36;
  -- The largest ID, 2^128-1, is f 5lxx1z z5pnor ynqglh zmsp33 in these groups.
  IF (lead, g1, g2, g3, g4) > (15, 339185303, 2125911339, 2095715717, 2154606591) THEN
    RAISE EXCEPTION 'invalid SCRU128 text %: above the largest ID, f5lxx1zz5pnorynqglhzmsp33 (2^128-1)',
      to_json(id)::text
      USING ERRCODE = 'invalid_text_representation';
  END IF;
  x0 := lead * d + g1;  -- below 36^7 < 2^37
  y0 := (x0 & m) * d + g2;
  y1 := (x0 >> 31) * d + (y0 >> 31);
  z0 := (y0 & m) * d + g3;
  z1 := (y1 & m) * d + (z0 >> 31);
  z2 := (y1 >> 31) * d + (z1 >> 31);
  w0 := (z0 & m) * d + g4;
  w1 := (z1 & m) * d + (w0 >> 31);
  w2 := (z2 & m) * d + (w1 >> 31);
  w3 := (z2 >> 31) * d + (w2 >> 31);
  -- Limbs w0..w3 & m hold bits 0-30, 31-61, 62-92 and 93-123; w3 >> 31,
  -- bits 124-127.
  RETURN (lpad(to_hex(((w3 >> 31) << 60) | ((w3 & m) << 29) | ((w2 & m) >> 2)), 16, '0') ||
          lpad(to_hex(((w2 & 3) << 62) | ((w1 & m) << 31) | (w0 & m)), 16, '0'))::uuid;
END
$$;

COMMENT ON FUNCTION scru128_from_text(text) IS
  'The SCRU128 ID of a 25-digit Base36 text, in either case, as a uuid.';


CREATE OR REPLACE FUNCTION scru128_time(id uuid) RETURNS timestamptz
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
-- The timestamp is the top 48 bits, in Unix milliseconds. to_timestamp
-- takes a double, exact for whole seconds (and for their microseconds:
-- s * 10^6 = s * 15625 * 2^6 with s * 15625 < 2^53); the milliseconds are
-- added as an interval of time alone, which no time zone changes.
DECLARE
  ms bigint := ('x' || left(encode(uuid_send(id), 'hex'), 12))::bit(48)::bigint;
BEGIN
  RETURN to_timestamp(ms / 1000) + (ms % 1000) * interval '1 millisecond';
END
$$;

COMMENT ON FUNCTION scru128_time(uuid) IS
  'The time of a SCRU128 ID: its timestamp, in milliseconds.';


CREATE OR REPLACE FUNCTION scru128_min_at(t timestamptz) RETURNS uuid
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
-- timestamptz_send gives the exact microseconds since 2000-01-01 UTC
-- (EXTRACT(epoch) is a double before PostgreSQL 14), 946684800 seconds
-- after the Unix epoch; the infinities lie beyond either end of it.
DECLARE
  us bigint := ('x' || encode(timestamptz_send(t), 'hex'))::bit(64)::bigint;
BEGIN
  IF us < -946684800000000 OR us >= 281474976710656000 - 946684800000000 THEN
    RAISE EXCEPTION 'a SCRU128 ID cannot hold the time %: it holds 1970-01-01 to 10889-08-02 05:31:50.655 UTC', t
      USING ERRCODE = 'datetime_field_overflow';
  END IF;
  RETURN (lpad(to_hex((us + 946684800000000) / 1000), 12, '0') || '00000000000000000000')::uuid;
END
$$;

COMMENT ON FUNCTION scru128_min_at(timestamptz) IS
  'The smallest SCRU128 ID of the millisecond that holds t: id BETWEEN scru128_min_at(t0) AND scru128_max_at(t1) selects the IDs of t0 to t1.';


CREATE OR REPLACE FUNCTION scru128_max_at(t timestamptz) RETURNS uuid
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
  us bigint := ('x' || encode(timestamptz_send(t), 'hex'))::bit(64)::bigint;
BEGIN
  IF us < -946684800000000 OR us >= 281474976710656000 - 946684800000000 THEN
    RAISE EXCEPTION 'a SCRU128 ID cannot hold the time %: it holds 1970-01-01 to 10889-08-02 05:31:50.655 UTC', t
      USING ERRCODE = 'datetime_field_overflow';
  END IF;
  RETURN (lpad(to_hex((us + 946684800000000) / 1000), 12, '0') || 'ffffffffffffffffffff')::uuid;
END
$$;

COMMENT ON FUNCTION scru128_max_at(timestamptz) IS
  'The largest SCRU128 ID of the millisecond that holds t.';


-- scru128_generate() runs the specification's algorithm on a state kept
-- per session in a custom setting: the last ID's timestamp, its counters
-- (counter_hi * 2^24 + counter_lo) and when its counter_hi was drawn.
-- ROLLBACK undoes a setting (so do ROLLBACK TO SAVEPOINT and an exception
-- caught in PL/pgSQL), and a generator back at the earlier state would
-- repeat what the rolled-back calls did, minting IDs below the ones they
-- returned. So each call also takes a number from this sequence, which no
-- rollback undoes, and keeps it in the state: when the next call's number
-- does not follow it, calls were lost, and the generator starts again
-- above anything they can have minted. A session takes its numbers a
-- million at a time, so the jump to the next million restarts the
-- generator too, which costs a wait of about 2 ms and nothing else.
CREATE SEQUENCE IF NOT EXISTS scru128_generate_calls AS bigint CACHE 1000000;

COMMENT ON SEQUENCE scru128_generate_calls IS
  'Numbers the calls of scru128_generate() in each session, outside transactions, so that it can see that a rollback undid its state.';

GRANT USAGE ON SEQUENCE scru128_generate_calls TO PUBLIC;

CREATE OR REPLACE FUNCTION scru128_generate() RETURNS uuid
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
-- The sequence is found in the schema this file was run in, whatever the
-- caller's search_path.
SET search_path FROM CURRENT
AS $$
DECLARE
  -- The setting's name ends in the sequence's OID, so that copies of this
  -- file in two schemas keep two states.
  setting CONSTANT text := 'scru128.generator_' || ('scru128_generate_calls'::regclass::oid)::text;
  state text := current_setting(setting, true);  -- call:timestamp:counters:renewed
  call_number bigint;
  history boolean := true;  -- this session may have minted IDs that the state does not account for
  now_ms bigint;
  target bigint;
  ts bigint;        -- the timestamp field, Unix milliseconds
  counters bigint;  -- counter_hi * 2^24 + counter_lo
  renewed bigint;   -- when counter_hi was drawn
  -- 122 random bits from the operating system's generator; hex digits 1-8,
  -- 19-24 and 25-30 (bytes 0-3, 9-11 and 12-14) hold none of the version
  -- and variant bits.
  random_hex text := encode(uuid_send(gen_random_uuid()), 'hex');
BEGIN
  now_ms := (('x' || encode(timestamptz_send(clock_timestamp()), 'hex'))::bit(64)::bigint + 946684800000000) / 1000;
  IF now_ms < 1 OR now_ms > 281474976710655 THEN
    RAISE EXCEPTION 'scru128_generate: the server''s clock reads %, outside the SCRU128 timestamp range (1970-01-01 to 10889-08-02 UTC)',
      clock_timestamp()
      USING ERRCODE = 'datetime_field_overflow';
  END IF;
  IF coalesce(state, '') = '' THEN
    -- No state: a new session, or one whose state a RESET or a rolled-back
    -- first transaction undid. currval, which rollbacks leave alone, is
    -- defined once the session has called.
    BEGIN
      PERFORM currval('scru128_generate_calls');
    EXCEPTION WHEN object_not_in_prerequisite_state THEN
      history := false;
    END;
  END IF;
  call_number := nextval('scru128_generate_calls');

  IF starts_with(state, (call_number - 1)::text || ':') THEN
    -- The previous call of this session left the state: nothing was lost.
    ts := split_part(state, ':', 2)::bigint;
    counters := split_part(state, ':', 3)::bigint;
    renewed := split_part(state, ':', 4)::bigint;
  END IF;
  -- A state is used only if it is one this function can have written.
  IF ts BETWEEN 1 AND 281474976710655 AND counters BETWEEN 0 AND 281474976710655
      AND renewed BETWEEN ts - 999 AND ts THEN
    IF now_ms > ts THEN
      -- A new millisecond: counter_lo starts again at random.
      ts := now_ms;
      counters := (counters & 281474959933440) | ('x' || substr(random_hex, 19, 6))::bit(24)::bigint;
    ELSIF now_ms + 10000 >= ts THEN
      -- The same millisecond, or the clock is behind the last ID by 10 s
      -- or less: count on. A carry out of counter_lo increments counter_hi,
      -- and one out of counter_hi moves to the next millisecond.
      counters := counters + 1;
      IF counters > 281474976710655 THEN
        IF ts = 281474976710655 THEN
          RAISE EXCEPTION 'scru128_generate: the counters overflowed at the largest timestamp'
            USING ERRCODE = 'datetime_field_overflow';
        END IF;
        ts := ts + 1;
        counters := ('x' || substr(random_hex, 19, 6))::bit(24)::bigint;
      END IF;
    ELSE
      -- The clock went back by more than 10 s: start over as a new
      -- generator would.
      ts := now_ms;
      counters := ('x' || substr(random_hex, 19, 12))::bit(48)::bigint;
      renewed := now_ms;
    END IF;
    IF ts - renewed >= 1000 THEN
      -- counter_hi lives a second.
      counters := (('x' || substr(random_hex, 25, 6))::bit(24)::bigint << 24) | (counters & 16777215);
      renewed := ts;
    END IF;
  ELSE
    IF history THEN
      -- Calls since the state was kept were rolled back, or their state
      -- was reset. The IDs they minted have a timestamp of at most the
      -- later of the state's and the clock's then, plus one for an
      -- overflow of counter_hi. Start above: wait until the clock is 2 ms
      -- past now, and stay 2 ms past the state if it is ahead of the clock.
      target := now_ms + 2;
      LOOP
        now_ms := (('x' || encode(timestamptz_send(clock_timestamp()), 'hex'))::bit(64)::bigint + 946684800000000) / 1000;
        EXIT WHEN now_ms >= target;
        PERFORM pg_sleep((target - now_ms) / 1000.0);
      END LOOP;
      IF state ~ '^[0-9]+:[0-9]{1,15}:' THEN
        now_ms := least(greatest(now_ms, split_part(state, ':', 2)::bigint + 2), 281474976710655);
      END IF;
    END IF;
    -- A new generator: both counters at random.
    ts := now_ms;
    counters := ('x' || substr(random_hex, 19, 12))::bit(48)::bigint;
    renewed := now_ms;
  END IF;

  PERFORM set_config(setting, call_number || ':' || ts || ':' || counters || ':' || renewed, false);
  RETURN (lpad(to_hex(ts), 12, '0') || lpad(to_hex(counters), 12, '0') || left(random_hex, 8))::uuid;
END
$$;

COMMENT ON FUNCTION scru128_generate() IS
  'A new SCRU128 ID at the server''s time: within a session above the one before, rolled-back ones too (docs/postgresql-functions.md has the limits); unique across sessions by its 80 random bits.';


-- ========================================================================
-- ULID: a uuid column holds the 16 bytes, as for SCRU128.
-- ========================================================================

CREATE OR REPLACE FUNCTION ulid_to_text(id uuid) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
-- 26 Crockford Base32 digits of five bits each, the first holding the top
-- three: digit k is bits 125-5k and up of the value, and digit 13
-- straddles the two 64-bit halves.
DECLARE
  hex text := encode(uuid_send(id), 'hex');
  hi bigint := ('x' || left(hex, 16))::bit(64)::bigint;
  lo bigint := ('x' || right(hex, 16))::bit(64)::bigint;
  alphabet CONSTANT bytea := '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
BEGIN
  RETURN encode(
    substring(alphabet FROM ((hi >> 61) & 7)::int + 1 FOR 1) ||
    substring(alphabet FROM ((hi >> 56) & 31)::int + 1 FOR 1) ||
    substring(alphabet FROM ((hi >> 51) & 31)::int + 1 FOR 1) ||
    substring(alphabet FROM ((hi >> 46) & 31)::int + 1 FOR 1) ||
    substring(alphabet FROM ((hi >> 41) & 31)::int + 1 FOR 1) ||
    substring(alphabet FROM ((hi >> 36) & 31)::int + 1 FOR 1) ||
    substring(alphabet FROM ((hi >> 31) & 31)::int + 1 FOR 1) ||
    substring(alphabet FROM ((hi >> 26) & 31)::int + 1 FOR 1) ||
    substring(alphabet FROM ((hi >> 21) & 31)::int + 1 FOR 1) ||
    substring(alphabet FROM ((hi >> 16) & 31)::int + 1 FOR 1) ||
    substring(alphabet FROM ((hi >> 11) & 31)::int + 1 FOR 1) ||
    substring(alphabet FROM ((hi >> 6) & 31)::int + 1 FOR 1) ||
    substring(alphabet FROM ((hi >> 1) & 31)::int + 1 FOR 1) ||
    substring(alphabet FROM (((hi & 1) << 4) | ((lo >> 60) & 15))::int + 1 FOR 1) ||
    substring(alphabet FROM ((lo >> 55) & 31)::int + 1 FOR 1) ||
    substring(alphabet FROM ((lo >> 50) & 31)::int + 1 FOR 1) ||
    substring(alphabet FROM ((lo >> 45) & 31)::int + 1 FOR 1) ||
    substring(alphabet FROM ((lo >> 40) & 31)::int + 1 FOR 1) ||
    substring(alphabet FROM ((lo >> 35) & 31)::int + 1 FOR 1) ||
    substring(alphabet FROM ((lo >> 30) & 31)::int + 1 FOR 1) ||
    substring(alphabet FROM ((lo >> 25) & 31)::int + 1 FOR 1) ||
    substring(alphabet FROM ((lo >> 20) & 31)::int + 1 FOR 1) ||
    substring(alphabet FROM ((lo >> 15) & 31)::int + 1 FOR 1) ||
    substring(alphabet FROM ((lo >> 10) & 31)::int + 1 FOR 1) ||
    substring(alphabet FROM ((lo >> 5) & 31)::int + 1 FOR 1) ||
    substring(alphabet FROM (lo & 31)::int + 1 FOR 1),
    'escape');
END
$$;

COMMENT ON FUNCTION ulid_to_text(uuid) IS
  'The 26-digit upper-case Crockford Base32 text of the ULID held in a uuid.';


CREATE OR REPLACE FUNCTION ulid_from_text(id text) RETURNS uuid
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
-- The first digit holds three bits, so it is 0-7; the next 25 are read in
-- groups of six (30 bits), with digit 13 between the halves.
DECLARE
  b bytea;
  -- A digit's value is its index in this alphabet, modulo 32.
  alphabet CONSTANT bytea := '0123456789ABCDEFGHJKMNPQRSTVWXYZ0123456789abcdefghjkmnpqrstvwxyz';
  lead bigint; mid bigint; g1 bigint; g2 bigint; g3 bigint; g4 bigint;
  len int; bad int;
BEGIN
  IF id !~ '^[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}$' THEN
    len := octet_length(convert_to(id, 'UTF8'));
    IF len <> 26 THEN
      RAISE EXCEPTION 'invalid ULID text: length % bytes, want 26', len
        USING ERRCODE = 'invalid_text_representation';
    END IF;
    bad := length(substring(id FROM '^[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]*'));
    IF bad = 26 THEN
      RAISE EXCEPTION 'invalid ULID text %: above the largest ULID, 7ZZZZZZZZZZZZZZZZZZZZZZZZZ (2^128-1)',
        to_json(id)::text
        USING ERRCODE = 'invalid_text_representation';
    END IF;
    RAISE EXCEPTION 'invalid ULID text %: invalid character % (byte 0x%) at offset %',
      to_json(id)::text, to_json(substr(id, bad + 1, 1))::text,
      lpad(to_hex(get_byte(convert_to(id, 'UTF8'), bad)), 2, '0'), bad
      USING ERRCODE = 'invalid_text_representation',
            DETAIL = 'A ULID text is 26 Crockford Base32 digits, 0-9 and the letters A-Z but I, L, O and U, in either case; the offset counts bytes from 0.';
  END IF;
  b := convert_to(id, 'UTF8');
  lead := (position(substring(b FROM 1 FOR 1) IN alphabet) - 1) % 32;
  g1 := ((position(substring(b FROM 2 FOR 1) IN alphabet) - 1) % 32 << 25) |
       ((position(substring(b FROM 3 FOR 1) IN alphabet) - 1) % 32 << 20) |
       ((position(substring(b FROM 4 FOR 1) IN alphabet) - 1) % 32 << 15) |
       ((position(substring(b FROM 5 FOR 1) IN alphabet) - 1) % 32 << 10) |
       ((position(substring(b FROM 6 FOR 1) IN alphabet) - 1) % 32 << 5) |
       ((position(substring(b FROM 7 FOR 1) IN alphabet) - 1) % 32);
  g2 := ((position(substring(b FROM 8 FOR 1) IN alphabet) - 1) % 32 << 25) |
       ((position(substring(b FROM 9 FOR 1) IN alphabet) - 1) % 32 << 20) |
       ((position(substring(b FROM 10 FOR 1) IN alphabet) - 1) % 32 << 15) |
       ((position(substring(b FROM 11 FOR 1) IN alphabet) - 1) % 32 << 10) |
       ((position(substring(b FROM 12 FOR 1) IN alphabet) - 1) % 32 << 5) |
       ((position(substring(b FROM 13 FOR 1) IN alphabet) - 1) % 32);
  mid := (position(substring(b FROM 14 FOR 1) IN alphabet) - 1) % 32;
  g3 := ((position(substring(b FROM 15 FOR 1) IN alphabet) - 1) % 32 << 25) |
       ((position(substring(b FROM 16 FOR 1) IN alphabet) - 1) % 32 << 20) |
       ((position(substring(b FROM 17 FOR 1) IN alphabet) - 1) % 32 << 15) |
       ((position(substring(b FROM 18 FOR 1) IN alphabet) - 1) % 32 << 10) |
       ((position(substring(b FROM 19 FOR 1) IN alphabet) - 1) % 32 << 5) |
       ((position(substring(b FROM 20 FOR 1) IN alphabet) - 1) % 32);
  g4 := ((position(substring(b FROM 21 FOR 1) IN alphabet) - 1) % 32 << 25) |
       ((position(substring(b FROM 22 FOR 1) IN alphabet) - 1) % 32 << 20) |
       ((position(substring(b FROM 23 FOR 1) IN alphabet) - 1) % 32 << 15) |
       ((position(substring(b FROM 24 FOR 1) IN alphabet) - 1) % 32 << 10) |
       ((position(substring(b FROM 25 FOR 1) IN alphabet) - 1) % 32 << 5) |
       ((position(substring(b FROM 26 FOR 1) IN alphabet) - 1) % 32);
  RETURN (lpad(to_hex((lead << 61) | (g1 << 31) | (g2 << 1) | (mid >> 4)), 16, '0') ||
          lpad(to_hex(((mid & 15) << 60) | (g3 << 30) | g4), 16, '0'))::uuid;
END
$$;

COMMENT ON FUNCTION ulid_from_text(text) IS
  'The ULID of a 26-digit Crockford Base32 text, in either case, as a uuid.';


CREATE OR REPLACE FUNCTION ulid_time(id uuid) RETURNS timestamptz
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
-- As scru128_time: the top 48 bits are Unix milliseconds.
DECLARE
  ms bigint := ('x' || left(encode(uuid_send(id), 'hex'), 12))::bit(48)::bigint;
BEGIN
  RETURN to_timestamp(ms / 1000) + (ms % 1000) * interval '1 millisecond';
END
$$;

COMMENT ON FUNCTION ulid_time(uuid) IS
  'The time of a ULID: its timestamp, in milliseconds.';


CREATE OR REPLACE FUNCTION ulid_min_at(t timestamptz) RETURNS uuid
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
-- As scru128_min_at: the same 48-bit timestamp, then 80 zero bits.
DECLARE
  us bigint := ('x' || encode(timestamptz_send(t), 'hex'))::bit(64)::bigint;
BEGIN
  IF us < -946684800000000 OR us >= 281474976710656000 - 946684800000000 THEN
    RAISE EXCEPTION 'a ULID cannot hold the time %: it holds 1970-01-01 to 10889-08-02 05:31:50.655 UTC', t
      USING ERRCODE = 'datetime_field_overflow';
  END IF;
  RETURN (lpad(to_hex((us + 946684800000000) / 1000), 12, '0') || '00000000000000000000')::uuid;
END
$$;

COMMENT ON FUNCTION ulid_min_at(timestamptz) IS
  'The smallest ULID of the millisecond that holds t: id BETWEEN ulid_min_at(t0) AND ulid_max_at(t1) selects the ULIDs of t0 to t1.';


CREATE OR REPLACE FUNCTION ulid_max_at(t timestamptz) RETURNS uuid
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
  us bigint := ('x' || encode(timestamptz_send(t), 'hex'))::bit(64)::bigint;
BEGIN
  IF us < -946684800000000 OR us >= 281474976710656000 - 946684800000000 THEN
    RAISE EXCEPTION 'a ULID cannot hold the time %: it holds 1970-01-01 to 10889-08-02 05:31:50.655 UTC', t
      USING ERRCODE = 'datetime_field_overflow';
  END IF;
  RETURN (lpad(to_hex((us + 946684800000000) / 1000), 12, '0') || 'ffffffffffffffffffff')::uuid;
END
$$;

COMMENT ON FUNCTION ulid_max_at(timestamptz) IS
  'The largest ULID of the millisecond that holds t.';


-- ========================================================================
-- SCRU64: a bigint column holds the ID, a value from 0 to 36^12-1.
-- ========================================================================

CREATE OR REPLACE FUNCTION scru64_to_text(id bigint) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
-- Twelve Base36 digits, as two halves below 36^6.
DECLARE
  g1 bigint;
  g0 bigint;
  alphabet CONSTANT bytea := '0123456789abcdefghijklmnopqrstuvwxyz';
BEGIN
  IF id < 0 OR id > 4738381338321616895 THEN
    RAISE EXCEPTION 'SCRU64 ID % out of range: an ID is 0 to 4738381338321616895 (36^12-1)', id
      USING ERRCODE = 'numeric_value_out_of_range';
  END IF;
  g1 := id / 2176782336;
  g0 := id % 2176782336;
  RETURN encode(
    substring(alphabet FROM (g1 / 60466176 + 1)::int FOR 1) ||
    substring(alphabet FROM (g1 / 1679616 % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (g1 / 46656 % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (g1 / 1296 % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (g1 / 36 % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (g1 % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (g0 / 60466176 + 1)::int FOR 1) ||
    substring(alphabet FROM (g0 / 1679616 % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (g0 / 46656 % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (g0 / 1296 % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (g0 / 36 % 36 + 1)::int FOR 1) ||
    substring(alphabet FROM (g0 % 36 + 1)::int FOR 1),
    'escape');
END
$$;

COMMENT ON FUNCTION scru64_to_text(bigint) IS
  'The 12-digit lower-case Base36 text of a SCRU64 ID.';


CREATE OR REPLACE FUNCTION scru64_from_text(id text) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
-- Every 12-digit text is in range: zzzzzzzzzzzz is the largest ID.
DECLARE
  b bytea;
  -- A digit's value is its index in this alphabet, modulo 36.
  alphabet CONSTANT bytea := '0123456789abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  g1 bigint;
  g0 bigint;
  len int; bad int;
BEGIN
  IF id !~ '^[0-9A-Za-z]{12}$' THEN
    len := octet_length(convert_to(id, 'UTF8'));
    IF len <> 12 THEN
      RAISE EXCEPTION 'invalid SCRU64 text: length % bytes, want 12', len
        USING ERRCODE = 'invalid_text_representation';
    END IF;
    bad := length(substring(id FROM '^[0-9A-Za-z]*'));
    RAISE EXCEPTION 'invalid SCRU64 text %: invalid character % (byte 0x%) at offset %',
      to_json(id)::text, to_json(substr(id, bad + 1, 1))::text,
      lpad(to_hex(get_byte(convert_to(id, 'UTF8'), bad)), 2, '0'), bad
      USING ERRCODE = 'invalid_text_representation',
            DETAIL = 'A SCRU64 text is 12 digits from 0-9, a-z and A-Z; the offset counts bytes from 0.';
  END IF;
  b := convert_to(id, 'UTF8');
  g1 := (position(substring(b FROM 1 FOR 1) IN alphabet) - 1) % 36 * 60466176::bigint +
        (position(substring(b FROM 2 FOR 1) IN alphabet) - 1) % 36 * 1679616 +
        (position(substring(b FROM 3 FOR 1) IN alphabet) - 1) % 36 * 46656 +
        (position(substring(b FROM 4 FOR 1) IN alphabet) - 1) % 36 * 1296 +
        (position(substring(b FROM 5 FOR 1) IN alphabet) - 1) % 36 * 36 +
        (position(substring(b FROM 6 FOR 1) IN alphabet) - 1) % 36;
  g0 := (position(substring(b FROM 7 FOR 1) IN alphabet) - 1) % 36 * 60466176::bigint +
        (position(substring(b FROM 8 FOR 1) IN alphabet) - 1) % 36 * 1679616 +
        (position(substring(b FROM 9 FOR 1) IN alphabet) - 1) % 36 * 46656 +
        (position(substring(b FROM 10 FOR 1) IN alphabet) - 1) % 36 * 1296 +
        (position(substring(b FROM 11 FOR 1) IN alphabet) - 1) % 36 * 36 +
        (position(substring(b FROM 12 FOR 1) IN alphabet) - 1) % 36;
  RETURN g1 * 2176782336 + g0;
END
$$;

COMMENT ON FUNCTION scru64_from_text(text) IS
  'The SCRU64 ID of a 12-digit Base36 text, in either case.';


CREATE OR REPLACE FUNCTION scru64_time(id bigint) RETURNS timestamptz
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
-- The timestamp is the value above the 24-bit node_ctr field, in ticks of
-- 256 ms; the time is the start of the tick.
DECLARE
  ms bigint;
BEGIN
  IF id < 0 OR id > 4738381338321616895 THEN
    RAISE EXCEPTION 'SCRU64 ID % out of range: an ID is 0 to 4738381338321616895 (36^12-1)', id
      USING ERRCODE = 'numeric_value_out_of_range';
  END IF;
  ms := (id >> 24) << 8;
  RETURN to_timestamp(ms / 1000) + (ms % 1000) * interval '1 millisecond';
END
$$;

COMMENT ON FUNCTION scru64_time(bigint) IS
  'The time of a SCRU64 ID: the start of its 256-millisecond tick.';


CREATE OR REPLACE FUNCTION scru64_min_at(t timestamptz) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
-- The tick that holds t is its Unix milliseconds >> 8; the largest tick
-- is 282429536480 (36^12/2^24 - 1), which ends at Unix millisecond
-- 282429536481 * 256 - 1. See scru128_min_at for timestamptz_send.
DECLARE
  us bigint := ('x' || encode(timestamptz_send(t), 'hex'))::bit(64)::bigint;
BEGIN
  IF us < -946684800000000 OR us >= 72301961339136000 - 946684800000000 THEN
    RAISE EXCEPTION 'a SCRU64 ID cannot hold the time %: it holds 1970-01-01 to 4261-02-27 06:08:59.135 UTC', t
      USING ERRCODE = 'datetime_field_overflow';
  END IF;
  RETURN ((us + 946684800000000) / 1000 >> 8) << 24;
END
$$;

COMMENT ON FUNCTION scru64_min_at(timestamptz) IS
  'The smallest SCRU64 ID of the 256-ms tick that holds t: id BETWEEN scru64_min_at(t0) AND scru64_max_at(t1) selects the IDs of the ticks of t0 to t1.';


CREATE OR REPLACE FUNCTION scru64_max_at(t timestamptz) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
  us bigint := ('x' || encode(timestamptz_send(t), 'hex'))::bit(64)::bigint;
BEGIN
  IF us < -946684800000000 OR us >= 72301961339136000 - 946684800000000 THEN
    RAISE EXCEPTION 'a SCRU64 ID cannot hold the time %: it holds 1970-01-01 to 4261-02-27 06:08:59.135 UTC', t
      USING ERRCODE = 'datetime_field_overflow';
  END IF;
  RETURN (((us + 946684800000000) / 1000 >> 8) << 24) | 16777215;
END
$$;

COMMENT ON FUNCTION scru64_max_at(timestamptz) IS
  'The largest SCRU64 ID of the 256-ms tick that holds t.';
