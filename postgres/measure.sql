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
--
-- To compare two versions of the file on one server, install each in a
-- schema of its own and name the schemas: the runs then take turns, each
-- function in one schema and then the other, so that what else the server
-- does weighs on both alike, and the table has a column for each:
--
--     psql -c 'CREATE SCHEMA before' -c 'CREATE SCHEMA after' "$DATABASE_URL"
--     git show main:postgres/scru128.sql > /tmp/scru128-main.sql
--     PGOPTIONS='-c search_path=before' psql -v ON_ERROR_STOP=1 -f /tmp/scru128-main.sql "$DATABASE_URL"
--     PGOPTIONS='-c search_path=after' psql -v ON_ERROR_STOP=1 -f postgres/scru128.sql "$DATABASE_URL"
--     psql -X -v ON_ERROR_STOP=1 -v schemas='before after' -f postgres/measure.sql "$DATABASE_URL"

\if :{?rows}
\else
  \set rows 1000000
\endif
\if :{?schemas}
\else
  \set schemas ''
\endif
SET measure.rows = :'rows';
SET measure.schemas = :'schemas';
-- The input is made with the first schema's functions.
SELECT pg_catalog.set_config('search_path', pg_catalog.split_part(:'schemas', ' ', 1), false)
WHERE :'schemas' <> '';

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

CREATE TEMPORARY TABLE measure_result (n serial, function text, schema text, microseconds numeric);

DO $$
DECLARE
  call record;
  schema text;
  -- Each schema's functions, or those on the search_path.
  schemas text[] := coalesce(nullif(string_to_array(current_setting('measure.schemas'), ' '), '{}'), ARRAY['']);
  best interval[];
  took interval;
  baseline interval;
  started timestamptz;
  rows_ int := current_setting('measure.rows')::int;
  run int;
  k int;
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
    best := array_fill(NULL::interval, ARRAY[array_length(schemas, 1)]);
    FOR run IN 1..3 LOOP
      FOR k IN 1..array_length(schemas, 1) LOOP
        schema := schemas[k];
        -- the same scan without the call, then with it
        started := clock_timestamp();
        EXECUTE format('SELECT count(%s) FROM measure_input', call.argument);
        baseline := clock_timestamp() - started;
        started := clock_timestamp();
        EXECUTE format('SELECT count(%s%s) FROM measure_input',
          CASE WHEN schema = '' THEN '' ELSE quote_ident(schema) || '.' END, call.expression);
        took := clock_timestamp() - started - baseline;
        IF best[k] IS NULL OR took < best[k] THEN
          best[k] := took;
        END IF;
      END LOOP;
    END LOOP;
    FOR k IN 1..array_length(schemas, 1) LOOP
      INSERT INTO measure_result (function, schema, microseconds)
        VALUES (call.function, schemas[k], round((extract(epoch FROM best[k]) * 1e6 / rows_)::numeric, 2));
    END LOOP;
  END LOOP;
END
$$;

\pset format unaligned
\pset tuples_only on
SELECT format('PostgreSQL %s, %s rows, the best of 3 runs:', current_setting('server_version'), current_setting('measure.rows'));
\echo
SELECT '| function | ' || string_agg(CASE WHEN schema = '' THEN 'µs per call' ELSE schema || ', µs per call' END, ' | ' ORDER BY n) || ' |'
       || chr(10) || '|---|' || string_agg('---:', '|' ORDER BY n) || '|'
FROM measure_result WHERE n <= (SELECT count(DISTINCT schema) FROM measure_result);
SELECT format('| `%s` | %s |', function, string_agg(microseconds::text, ' | ' ORDER BY n)) FROM measure_result GROUP BY function ORDER BY min(n);
