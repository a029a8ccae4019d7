-- SCRU64 node ID leases in PostgreSQL, for github.com/fastid/scru128/scru64/pgnode.
--
-- pgnode.Setup runs this file; a DBA may run it instead, by hand, as the role
-- that is to own these objects (PostgreSQL 13 or later):
--
--     psql -v ON_ERROR_STOP=1 -1 -f schema.sql
--
-- It is idempotent: run again, it changes nothing but the functions' code.
-- The objects go in schema scru64; for another schema, change the name on the
-- two lines of the header below (Setup does that for WithSchema, with a
-- header of its own). Keep the schema to these objects, and let nobody but
-- its owner create objects in it.
--
-- Then let the fleet's role lease node IDs, and nothing more:
--
--     GRANT USAGE ON SCHEMA scru64 TO fleet;
--     GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA scru64 TO fleet;
--
-- The role needs no privilege on the tables: the seven functions it calls
-- are SECURITY DEFINER and do only what the protocol does. The helpers they
-- call run with the caller's privileges, which for the fleet's role reach
-- no table, so granting every function is safe.
--
-- What the tables hold, and why each function is the transaction it is, is
-- told in the documentation of the Go package that implements the protocol
-- (internal/nodelease, "Stores other than etcd").

-- header: pgnode.Setup runs what follows the end of the header after a
-- header of its own that names the schema.
CREATE SCHEMA IF NOT EXISTS scru64;
SET search_path = scru64, pg_temp;
-- end of header

-- The store: one row, whose revision counts the writes, as etcd's does.
-- Every function that writes first increments it, which locks the row until
-- its transaction ends: writes are serialized, and each write's revision is
-- its place in that order. identity is the system identifier of the cluster
-- this was set up on, or a random number where the system identifier cannot
-- be read (see server_identity).
CREATE TABLE IF NOT EXISTS store (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    revision  bigint NOT NULL CHECK (revision > 0),
    identity  bigint NOT NULL CHECK (identity <> 0)
);

-- Leases: each lives ttl seconds from its grant or last renewal, measured
-- by the server's clock, or from the server's start if that is later (as
-- etcd gives every lease a new TTL when a leader starts: a server that was
-- down, or restored from a backup, lets the nodes renew before their leases
-- end). One that has ended is absent to every function, and the next write
-- deletes it with its keys.
CREATE TABLE IF NOT EXISTS leases (
    id         bigint PRIMARY KEY CHECK (id > 0),
    ttl        bigint NOT NULL CHECK (ttl > 0),
    expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS leases_expires_at ON leases (expires_at);

-- Keys, as etcd keeps them: compared and ordered byte by byte (COLLATE "C"),
-- with the revisions of their creation and last change, and the lease they
-- go with, if any.
CREATE TABLE IF NOT EXISTS keys (
    key             text COLLATE "C" PRIMARY KEY,
    value           text NOT NULL,
    create_revision bigint NOT NULL CHECK (create_revision > 0),
    mod_revision    bigint NOT NULL CHECK (mod_revision >= create_revision),
    lease           bigint REFERENCES leases (id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS keys_lease ON keys (lease) WHERE lease IS NOT NULL;

-- max_answered is how many characters of a key or value the functions
-- answer: every key and value a node writes is shorter (a realm's name has
-- at most 200 bytes), and a longer one, which no node wrote, is answered
-- cut short rather than whole, so that a row of a gigabyte costs a node
-- no gigabyte of memory. The node refuses it either way.
CREATE OR REPLACE FUNCTION max_answered() RETURNS integer
LANGUAGE sql IMMUTABLE SET search_path FROM CURRENT
AS $$ SELECT 256 $$;

-- random_id returns a random positive 63-bit number from the server's strong
-- random source: lease IDs are not to be guessed.
CREATE OR REPLACE FUNCTION random_id() RETURNS bigint
LANGUAGE sql VOLATILE SET search_path FROM CURRENT
AS $$
    SELECT ('x' || translate(gen_random_uuid()::text, '-', ''))::bit(64)::bigint & 9223372036854775807
$$;

-- system_identifier returns the cluster's system identifier, or NULL if
-- the caller may not read it (a managed service may revoke that). The call
-- is under an IF: a query that merely names pg_control_system needs the
-- privilege, even where it would not be called.
CREATE OR REPLACE FUNCTION system_identifier() RETURNS bigint
LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT
AS $$
BEGIN
    IF has_function_privilege('pg_catalog.pg_control_system()', 'EXECUTE') THEN
        RETURN (SELECT c.system_identifier FROM pg_control_system() c);
    END IF;
    RETURN NULL;
END
$$;

INSERT INTO store (revision, identity)
VALUES (1, coalesce(system_identifier(), random_id() | 1))
ON CONFLICT (singleton) DO NOTHING;

-- server_identity returns who answers: the cluster's system identifier
-- (which a physical backup or a replica shares, and a new cluster does not)
-- and its timeline (which a promotion or a recovery to a point in time
-- advances), each where the functions' owner may read it, else the identity
-- recorded at setup and 0. With it, the store's revision. It runs with the
-- caller's privileges: called by a SECURITY DEFINER function below, as its
-- owner; called by the fleet's role directly, it fails on the store table.
CREATE OR REPLACE FUNCTION server_identity(OUT cluster_id bigint, OUT timeline bigint, OUT revision bigint)
LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT
AS $$
BEGIN
    SELECT coalesce(system_identifier(), s.identity), s.revision INTO cluster_id, revision FROM store s;
    timeline := 0;
    IF NOT pg_is_in_recovery()
       AND has_function_privilege('pg_catalog.pg_current_wal_lsn()', 'EXECUTE')
       AND has_function_privilege('pg_catalog.pg_walfile_name(pg_lsn)', 'EXECUTE') THEN
        -- A WAL file's name starts with the timeline, in 8 hex digits.
        timeline := ('x' || left(pg_walfile_name(pg_current_wal_lsn()), 8))::bit(32)::bigint;
    END IF;
END
$$;

-- begin_write starts every function that writes: it takes the store's row
-- (waiting for the write before it to commit), raises the revision, deletes
-- the leases that have ended by the server's clock with their keys, and
-- returns the new revision. It also makes sure the commit is durable before
-- it is acknowledged, whatever synchronous_commit the caller's role has: a
-- write lost in a crash after its answer is the kind of loss the protocol
-- cannot see coming.
CREATE OR REPLACE FUNCTION begin_write() RETURNS bigint
LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT
AS $$
DECLARE
    rev bigint;
BEGIN
    IF current_setting('synchronous_commit') = 'off' THEN
        -- Local: until the transaction ends, past this function.
        PERFORM set_config('synchronous_commit', 'on', true);
    END IF;
    UPDATE store SET revision = store.revision + 1 RETURNING store.revision INTO rev;
    IF rev IS NULL THEN
        RAISE EXCEPTION 'pgnode: the store row is missing (run pgnode.Setup or schema.sql again)';
    END IF;
    DELETE FROM leases
    WHERE expires_at <= clock_timestamp() AND pg_postmaster_start_time() + make_interval(secs => ttl) <= clock_timestamp();
    RETURN rev;
END
$$;

-- grant_lease creates a lease of ttl seconds.
CREATE OR REPLACE FUNCTION grant_lease(p_ttl bigint, OUT lease bigint, OUT ttl bigint)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path FROM CURRENT
AS $$
BEGIN
    IF p_ttl IS NULL OR p_ttl < 1 OR p_ttl > 9000000000 THEN
        RAISE EXCEPTION 'pgnode: a lease TTL of % seconds is not in 1..9000000000', p_ttl;
    END IF;
    LOOP
        lease := random_id();
        CONTINUE WHEN lease = 0;
        INSERT INTO leases (id, ttl, expires_at)
        VALUES (lease, p_ttl, clock_timestamp() + make_interval(secs => p_ttl))
        ON CONFLICT (id) DO NOTHING;
        EXIT WHEN FOUND;
    END LOOP;
    ttl := p_ttl;
END
$$;

-- keep_alive renews a lease to its TTL from now, unless it has ended: then
-- ttl is 0.
CREATE OR REPLACE FUNCTION keep_alive(p_lease bigint, OUT ttl bigint, OUT cluster_id bigint, OUT timeline bigint, OUT revision bigint)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path FROM CURRENT
AS $$
BEGIN
    UPDATE leases l SET expires_at = clock_timestamp() + make_interval(secs => l.ttl)
    WHERE l.id = p_lease
      AND greatest(l.expires_at, pg_postmaster_start_time() + make_interval(secs => l.ttl)) > clock_timestamp()
    RETURNING l.ttl INTO ttl;
    ttl := coalesce(ttl, 0);
    SELECT i.cluster_id, i.timeline, i.revision INTO cluster_id, timeline, revision FROM server_identity() i;
END
$$;

-- revoke_lease deletes a lease and its keys.
CREATE OR REPLACE FUNCTION revoke_lease(p_lease bigint) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path FROM CURRENT
AS $$
BEGIN
    PERFORM begin_write();
    DELETE FROM leases WHERE id = p_lease;
END
$$;

-- put_if_absent creates a key with no lease unless it exists, and returns
-- its value afterwards.
CREATE OR REPLACE FUNCTION put_if_absent(p_key text, p_value text,
    OUT current_value text, OUT cluster_id bigint, OUT timeline bigint, OUT revision bigint)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path FROM CURRENT
AS $$
DECLARE
    rev bigint := begin_write();
BEGIN
    INSERT INTO keys (key, value, create_revision, mod_revision, lease)
    VALUES (p_key, p_value, rev, rev, NULL)
    ON CONFLICT (key) DO NOTHING;
    SELECT left(k.value, max_answered()) INTO current_value FROM keys k WHERE k.key = p_key;
    SELECT i.cluster_id, i.timeline, i.revision INTO cluster_id, timeline, revision FROM server_identity() i;
END
$$;

-- acquire takes a node ID: if the realm key holds p_realm_value and the
-- holder key does not exist, it creates the holder key with the lease and
-- reads the continuity record and the realm key's create revision; else it
-- reads the realm key's value and create revision, the lease the holder key
-- goes with, and the record, so that a node whose earlier call took the
-- holder key (and lost the answer) can tell and take the node ID.
CREATE OR REPLACE FUNCTION acquire(p_realm_key text, p_realm_value text, p_holder_key text, p_holder_value text,
    p_lease bigint, p_record_key text,
    OUT acquired boolean, OUT record_value text, OUT record_mod_revision bigint,
    OUT realm_create_revision bigint, OUT realm_value text, OUT holder_lease bigint,
    OUT cluster_id bigint, OUT timeline bigint, OUT revision bigint)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path FROM CURRENT
AS $$
DECLARE
    rev bigint := begin_write();
    found_value text;
    found_create bigint;
BEGIN
    SELECT k.value, k.create_revision INTO found_value, found_create FROM keys k WHERE k.key = p_realm_key;
    acquired := found_value = p_realm_value AND NOT EXISTS (SELECT FROM keys k WHERE k.key = p_holder_key);
    IF acquired THEN
        IF NOT EXISTS (SELECT FROM leases l WHERE l.id = p_lease) THEN
            RAISE EXCEPTION 'pgnode: lease % not found (it expired or was revoked)', to_hex(p_lease)
                USING ERRCODE = 'no_data_found';
        END IF;
        INSERT INTO keys (key, value, create_revision, mod_revision, lease)
        VALUES (p_holder_key, p_holder_value, rev, rev, p_lease);
    ELSE
        SELECT coalesce(k.lease, 0) INTO holder_lease FROM keys k WHERE k.key = p_holder_key;
    END IF;
    SELECT left(k.value, max_answered()), k.mod_revision INTO record_value, record_mod_revision
    FROM keys k WHERE k.key = p_record_key;
    acquired := coalesce(acquired, false);
    record_value := coalesce(record_value, '');
    record_mod_revision := coalesce(record_mod_revision, 0);
    realm_create_revision := coalesce(found_create, 0);
    realm_value := coalesce(left(found_value, max_answered()), '');
    holder_lease := coalesce(holder_lease, 0);
    SELECT i.cluster_id, i.timeline, i.revision INTO cluster_id, timeline, revision FROM server_identity() i;
END
$$;

-- write_record writes the continuity record (or deletes it), fenced: only
-- if the holder key goes with p_lease, the record's mod revision is
-- p_mod_revision (0: absent) and the realm key's create revision is
-- p_realm_create_revision. Else it writes nothing and returns what it found.
CREATE OR REPLACE FUNCTION write_record(p_holder_key text, p_lease bigint, p_record_key text, p_mod_revision bigint,
    p_realm_key text, p_realm_create_revision bigint, p_value text, p_delete boolean,
    OUT written boolean, OUT record_value text, OUT record_mod_revision bigint,
    OUT holder_lease bigint, OUT realm_create_revision bigint,
    OUT cluster_id bigint, OUT timeline bigint, OUT revision bigint)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path FROM CURRENT
AS $$
DECLARE
    rev bigint := begin_write();
BEGIN
    SELECT coalesce(k.lease, 0) INTO holder_lease FROM keys k WHERE k.key = p_holder_key;
    SELECT k.value, k.mod_revision INTO record_value, record_mod_revision FROM keys k WHERE k.key = p_record_key;
    SELECT k.create_revision INTO realm_create_revision FROM keys k WHERE k.key = p_realm_key;
    record_value := left(record_value, max_answered());
    holder_lease := coalesce(holder_lease, 0);
    record_value := coalesce(record_value, '');
    record_mod_revision := coalesce(record_mod_revision, 0);
    realm_create_revision := coalesce(realm_create_revision, 0);
    written := holder_lease = p_lease AND record_mod_revision = p_mod_revision
        AND realm_create_revision = p_realm_create_revision;
    IF written THEN
        IF p_delete THEN
            DELETE FROM keys WHERE key = p_record_key;
        ELSE
            INSERT INTO keys (key, value, create_revision, mod_revision, lease)
            VALUES (p_record_key, p_value, rev, rev, NULL)
            ON CONFLICT (key) DO UPDATE SET value = excluded.value, mod_revision = excluded.mod_revision, lease = NULL;
        END IF;
    END IF;
    SELECT i.cluster_id, i.timeline, i.revision INTO cluster_id, timeline, revision FROM server_identity() i;
END
$$;

-- list_keys returns up to p_limit keys from p_from to p_end, in byte order,
-- each bound included or not, leaving out keys of leases that have ended.
CREATE OR REPLACE FUNCTION list_keys(p_from text, p_from_included boolean, p_end text, p_end_included boolean,
    p_limit bigint) RETURNS SETOF text
LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path FROM CURRENT
AS $$
    SELECT left(k.key, max_answered()) FROM keys k
    WHERE k.key >= p_from AND k.key <= p_end
      AND (p_from_included OR k.key <> p_from)
      AND (p_end_included OR k.key <> p_end)
      AND (k.lease IS NULL OR EXISTS (
          SELECT FROM leases l WHERE l.id = k.lease
          AND greatest(l.expires_at, pg_postmaster_start_time() + make_interval(secs => l.ttl)) > clock_timestamp()))
    ORDER BY k.key
    LIMIT p_limit
$$;

-- Nobody but the owner may call a function until granted: functions are
-- executable by PUBLIC when created.
REVOKE ALL ON FUNCTION max_answered(), random_id(), system_identifier(), server_identity(), begin_write(), grant_lease(bigint), keep_alive(bigint),
    revoke_lease(bigint), put_if_absent(text, text), acquire(text, text, text, text, bigint, text),
    write_record(text, bigint, text, bigint, text, bigint, text, boolean),
    list_keys(text, boolean, text, boolean, bigint) FROM PUBLIC;
