-- Measures what each function of scru128.sql costs a call: the time of
-- SELECT count(f(x)) over a million rows, less the time of SELECT count(x)
-- over the same rows, divided by their number; the best of three runs.
-- Run it on an idle server, in a database where scru128.sql is installed
-- and on the search_path:
--
--     psql -X -v ON_ERROR_STOP=1 -f postgres/measure.sql "$DATABASE_URL"
--
-- It prints a Markdown table. -v rows=N measures over N rows instead of a
-- million. It works in temporary tables, which go with the session.

\if :{?rows}
\else
  \set rows 1000000
\endif
SET measure.rows = :'rows';

CREATE TEMPORARY TABLE measure_input AS
SELECT id,
       scru128_to_text(id) AS scru128_text,
       ulid_to_text(id) AS ulid_text,
       id64,
       scru64_to_text(id64) AS scru64_text,
       at
FROM (
  SELECT gen_random_uuid() AS id,
         floor(random() * 4738381338321616896)::bigint AS id64,  -- 0 to 36^12-1
         timestamptz '1970-01-01 00:00:00+00' + random() * interval '200 years' AS at
  FROM generate_series(1, current_setting('measure.rows')::int)
) AS random_values;
VACUUM ANALYZE measure_input;

CREATE TEMPORARY TABLE measure_result (n serial, function text, microseconds numeric);

DO $$
DECLARE
  call record;
  best interval;
  took interval;
  baseline interval;
  started timestamptz;
  rows_ int := current_setting('measure.rows')::int;
  run int;
BEGIN
  FOR call IN
    SELECT * FROM (VALUES
      ('scru128_to_text(uuid)', 'scru128_to_text(id)', 'id'),
      ('scru128_from_text(text)', 'scru128_from_text(scru128_text)', 'scru128_text'),
      ('scru128_time(uuid)', 'scru128_time(id)', 'id'),
      ('scru128_min_at(timestamptz)', 'scru128_min_at(at)', 'at'),
      ('scru128_max_at(timestamptz)', 'scru128_max_at(at)', 'at'),
      ('scru128_generate()', 'scru128_generate()', 'id'),
      ('ulid_to_text(uuid)', 'ulid_to_text(id)', 'id'),
      ('ulid_from_text(text)', 'ulid_from_text(ulid_text)', 'ulid_text'),
      ('ulid_time(uuid)', 'ulid_time(id)', 'id'),
      ('ulid_min_at(timestamptz)', 'ulid_min_at(at)', 'at'),
      ('ulid_max_at(timestamptz)', 'ulid_max_at(at)', 'at'),
      ('scru64_to_text(bigint)', 'scru64_to_text(id64)', 'id64'),
      ('scru64_from_text(text)', 'scru64_from_text(scru64_text)', 'scru64_text'),
      ('scru64_time(bigint)', 'scru64_time(id64)', 'id64'),
      ('scru64_min_at(timestamptz)', 'scru64_min_at(at)', 'at'),
      ('scru64_max_at(timestamptz)', 'scru64_max_at(at)', 'at')
    ) AS calls (function, expression, argument)
  LOOP
    FOR run IN 1..3 LOOP
      -- the same scan without the call, then with it
      started := clock_timestamp();
      EXECUTE format('SELECT count(%s) FROM measure_input', call.argument);
      baseline := clock_timestamp() - started;
      started := clock_timestamp();
      EXECUTE format('SELECT count(%s) FROM measure_input', call.expression);
      took := clock_timestamp() - started - baseline;
      IF best IS NULL OR took < best THEN
        best := took;
      END IF;
    END LOOP;
    INSERT INTO measure_result (function, microseconds)
      VALUES (call.function, round((extract(epoch FROM best) * 1e6 / rows_)::numeric, 2));
    best := NULL;
  END LOOP;
END
$$;

\pset format unaligned
\pset tuples_only on
SELECT format('PostgreSQL %s, %s rows, the best of 3 runs:', current_setting('server_version'), current_setting('measure.rows'));
\echo
\echo '| function | µs per call |'
\echo '|---|---:|'
SELECT format('| `%s` | %s |', function, microseconds) FROM measure_result ORDER BY n;
