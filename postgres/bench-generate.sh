#!/bin/sh
# Measures scru128_generate() under pgbench beside a plain PL/pgSQL UUIDv7
# function and gen_random_uuid(): calls per second at 1, 2, 8 and 32
# clients, with 100 calls per statement and with one call per transaction;
# the first call after DISCARD ALL, in the server's clock; and a new
# session's first statement calling it (beside a PL/pgSQL function that
# does nothing, which shows what loading PL/pgSQL into the session costs,
# and gen_random_uuid()). Run it on an
# idle server, in a database where scru128.sql is installed in schema ids
# (the guide's Setup), as a role that may create a schema: the UUIDv7
# function goes in schema scru128_bench, which pgbench's sessions can see
# and the script drops at the end. It prints a Markdown table.
#
#     sh postgres/bench-generate.sh "$DATABASE_URL"
#
# SCHEMA names the functions' schema (default ids); SECONDS_PER_RUN the
# length of each pgbench run (default 10); SESSIONS the number of new
# sessions for the first statement (default 21).
set -eu
db=${1:?usage: bench-generate.sh DATABASE_URL}
schema=${SCHEMA:-ids}
secs=${SECONDS_PER_RUN:-10}
sessions=${SESSIONS:-21}
tmp=$(mktemp -d)
trap 'psql -X -q -c "DROP SCHEMA IF EXISTS scru128_bench CASCADE" "$db" >/dev/null 2>&1; rm -rf "$tmp"' EXIT

# The comparison: UUIDv7 (RFC 9562) in plain PL/pgSQL, stateless.
psql -X -q -v ON_ERROR_STOP=1 "$db" <<'SQL'
DROP SCHEMA IF EXISTS scru128_bench CASCADE;
CREATE SCHEMA scru128_bench;
CREATE FUNCTION scru128_bench.uuidv7() RETURNS uuid LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  ms bigint := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
  b bytea := uuid_send(gen_random_uuid());
BEGIN
  b := overlay(b PLACING substring(int8send(ms) FROM 3) FROM 1 FOR 6);
  b := set_byte(b, 6, (get_byte(b, 6) & 15) | 112);
  RETURN encode(b, 'hex')::uuid;
END $$;
CREATE FUNCTION scru128_bench.nothing() RETURNS uuid LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RETURN NULL;
END $$;
SQL

for f in "$schema.scru128_generate" scru128_bench.uuidv7 gen_random_uuid; do
  name=$(echo "$f" | tr . _)
  echo "SELECT count($f()) FROM generate_series(1, 100);" >"$tmp/$name.100"
  echo "SELECT $f();" >"$tmp/$name.1"
done

printf '| function | calls per | 1 client | 2 clients | 8 clients | 32 clients |\n|---|---|---:|---:|---:|---:|\n'
for per in 100 1; do
  for f in "$schema.scru128_generate" scru128_bench.uuidv7 gen_random_uuid; do
    name=$(echo "$f" | tr . _)
    row="| \`$f()\` | $( [ $per = 100 ] && echo statement || echo transaction ) |"
    for clients in 1 2 8 32; do
      tps=$(pgbench -n -M prepared -f "$tmp/$name.$per" -c $clients -j $((clients < 4 ? clients : 4)) -T "$secs" "$db" 2>/dev/null |
        sed -n 's/^tps = \([0-9.]*\) .*/\1/p')
      row="$row $(echo "$tps $per" | awk '{printf "%.0f", $1 * $2}') |"
    done
    echo "$row"
  done
done

# The first call after DISCARD ALL, as a pool's reset query leaves a
# session, 21 times, in microseconds of the server's clock.
for i in $(seq 21); do
  echo "SELECT count($schema.scru128_generate()) FROM generate_series(1, 10);"
  echo "DISCARD ALL;"
  echo "SELECT 'first ' || (extract(epoch FROM c1 - c0) * 1e6)::int FROM (SELECT clock_timestamp() AS c0, $schema.scru128_generate() AS g, clock_timestamp() AS c1) x;"
done | psql -X -q -At "$db" | sed -n 's/^first //p' | sort -n |
  awk '{v[NR] = $1} END {printf "\nfirst call after DISCARD ALL, µs: median %d, 90th percentile %d, max %d (%d sessions)\n", v[int((NR + 1) / 2)], v[int(NR * 0.9 + 0.5)], v[NR], NR}'

# A new session's first statement, SELECT f(): its planning and execution
# time as EXPLAIN ANALYZE reports them (the server's clock; the client's
# connection and round trip excluded), in new sessions taken in turn.
printf '\nnew session, first statement SELECT f(), µs:\n'
for i in $(seq "$sessions"); do
  for f in "$schema.scru128_generate" scru128_bench.nothing gen_random_uuid; do
    psql -X -q -At -c "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON, COSTS OFF) SELECT $f()" "$db" |
      awk -v f="$f" '/^(Planning|Execution) Time/ {s += $3} END {printf "%s %d\n", f, s * 1000}'
  done
done | sort -k1,1 -k2,2n | awk '
  {v[$1, ++n[$1]] = $2}
  END {for (f in n) printf "  %s: median %d, 90th percentile %d, max %d (%d sessions)\n", f, v[f, int((n[f] + 1) / 2)], v[f, int(n[f] * 0.9 + 0.5)], v[f, n[f]], n[f]}' | sort
