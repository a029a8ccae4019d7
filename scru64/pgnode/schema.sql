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
-- header of its own that names the schema. Nothing in it calls a function
-- before the search path is set: every name a session's search path could
-- shadow is qualified with pg_catalog until the schema is known to be the
-- running role's own.
SET search_path = pg_catalog, pg_temp;
CREATE SCHEMA IF NOT EXISTS scru64;
SET search_path = scru64, pg_temp;
-- end of header

-- The schema and everything in it must be the running role's own. A role
-- that created the schema first (any role with CREATE on the database may),
-- or owns a table or function in it, could replace what the SECURITY
-- DEFINER functions below call, and run its code as their owner, or change
-- the tables under the fleet. So this refuses, naming each object and its
-- owner. Every function and operator here is qualified: the schema's own
-- could win over pg_catalog's for a better-matching signature.
DO $owners$
DECLARE
    me oid := (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) CURRENT_USER);
    here oid := (SELECT n.oid FROM pg_catalog.pg_namespace n
                 WHERE n.nspname OPERATOR(pg_catalog.=) pg_catalog.current_schema());
    others text;
BEGIN
    IF here IS NULL THEN
        RAISE EXCEPTION 'pgnode: the schema to set up is missing from the search path';
    END IF;
    SELECT pg_catalog.string_agg(o.what, ', ' ORDER BY o.what) INTO others FROM (
        SELECT pg_catalog.format('the schema itself (owned by %I)', pg_catalog.pg_get_userbyid(n.nspowner)) AS what
        FROM pg_catalog.pg_namespace n WHERE n.oid OPERATOR(pg_catalog.=) here AND n.nspowner OPERATOR(pg_catalog.<>) me
        UNION ALL
        SELECT pg_catalog.format('relation %s (owned by %I)', c.oid::pg_catalog.regclass, pg_catalog.pg_get_userbyid(c.relowner))
        FROM pg_catalog.pg_class c WHERE c.relnamespace OPERATOR(pg_catalog.=) here AND c.relowner OPERATOR(pg_catalog.<>) me
        UNION ALL
        SELECT pg_catalog.format('function %s (owned by %I)', p.oid::pg_catalog.regprocedure, pg_catalog.pg_get_userbyid(p.proowner))
        FROM pg_catalog.pg_proc p WHERE p.pronamespace OPERATOR(pg_catalog.=) here AND p.proowner OPERATOR(pg_catalog.<>) me
        UNION ALL
        SELECT pg_catalog.format('type %s (owned by %I)', t.oid::pg_catalog.regtype, pg_catalog.pg_get_userbyid(t.typowner))
        FROM pg_catalog.pg_type t WHERE t.typnamespace OPERATOR(pg_catalog.=) here AND t.typowner OPERATOR(pg_catalog.<>) me
          AND t.typrelid OPERATOR(pg_catalog.=) 0 AND t.typcategory OPERATOR(pg_catalog.<>) 'A' -- not a relation's row type, nor an array type
        UNION ALL
        SELECT pg_catalog.format('operator %s (owned by %I)', o.oid::pg_catalog.regoperator, pg_catalog.pg_get_userbyid(o.oprowner))
        FROM pg_catalog.pg_operator o WHERE o.oprnamespace OPERATOR(pg_catalog.=) here AND o.oprowner OPERATOR(pg_catalog.<>) me
        UNION ALL
        SELECT pg_catalog.format('collation %I (owned by %I)', c.collname, pg_catalog.pg_get_userbyid(c.collowner))
        FROM pg_catalog.pg_collation c WHERE c.collnamespace OPERATOR(pg_catalog.=) here AND c.collowner OPERATOR(pg_catalog.<>) me
        UNION ALL
        SELECT pg_catalog.format('conversion %I (owned by %I)', c.conname, pg_catalog.pg_get_userbyid(c.conowner))
        FROM pg_catalog.pg_conversion c WHERE c.connamespace OPERATOR(pg_catalog.=) here AND c.conowner OPERATOR(pg_catalog.<>) me
        UNION ALL
        SELECT pg_catalog.format('operator class %I (owned by %I)', c.opcname, pg_catalog.pg_get_userbyid(c.opcowner))
        FROM pg_catalog.pg_opclass c WHERE c.opcnamespace OPERATOR(pg_catalog.=) here AND c.opcowner OPERATOR(pg_catalog.<>) me
        UNION ALL
        SELECT pg_catalog.format('operator family %I (owned by %I)', f.opfname, pg_catalog.pg_get_userbyid(f.opfowner))
        FROM pg_catalog.pg_opfamily f WHERE f.opfnamespace OPERATOR(pg_catalog.=) here AND f.opfowner OPERATOR(pg_catalog.<>) me
        UNION ALL
        SELECT pg_catalog.format('text search configuration %I (owned by %I)', c.cfgname, pg_catalog.pg_get_userbyid(c.cfgowner))
        FROM pg_catalog.pg_ts_config c WHERE c.cfgnamespace OPERATOR(pg_catalog.=) here AND c.cfgowner OPERATOR(pg_catalog.<>) me
        UNION ALL
        SELECT pg_catalog.format('text search dictionary %I (owned by %I)', d.dictname, pg_catalog.pg_get_userbyid(d.dictowner))
        FROM pg_catalog.pg_ts_dict d WHERE d.dictnamespace OPERATOR(pg_catalog.=) here AND d.dictowner OPERATOR(pg_catalog.<>) me
        UNION ALL
        SELECT pg_catalog.format('statistics object %I (owned by %I)', x.stxname, pg_catalog.pg_get_userbyid(x.stxowner))
        FROM pg_catalog.pg_statistic_ext x WHERE x.stxnamespace OPERATOR(pg_catalog.=) here AND x.stxowner OPERATOR(pg_catalog.<>) me
    ) o;
    IF others IS NOT NULL THEN
        RAISE EXCEPTION 'pgnode: schema % is not all %''s own: %', pg_catalog.quote_ident(pg_catalog.current_schema()),
            pg_catalog.quote_ident(CURRENT_USER), others
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'The role that sets up the schema must own it and everything in it, or another role could run its code through the schema''s SECURITY DEFINER functions. Drop the schema, or run Setup as its owner (SET ROLE), once what it holds is checked.';
    END IF;
END
$owners$;

-- The store: one row, whose revision counts the writes, as etcd's does.
-- Every function that writes first increments it, which locks the row until
-- its transaction ends: writes are serialized, and each write's revision is
-- its place in that order. identity is the system identifier of the cluster
-- this was set up on, or a random number where the system identifier cannot
-- be read (see server_identity).
CREATE TABLE IF NOT EXISTS store (
    singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    revision   bigint NOT NULL CHECK (revision > 0),
    identity   bigint NOT NULL CHECK (identity <> 0),
    generation bigint NOT NULL DEFAULT 0
);
-- generation changes when the keys were truncated, or the store's row made
-- anew with keys in place (see note_truncation and the row's INSERT below):
-- it is mixed into the cluster ID the functions answer, so that every node
-- that wrote before stops with ErrDataLoss. A schema made before it existed
-- gets it here, once (ALTER TABLE locks the store, which writes wait on,
-- not renewals).
DO $generation$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_attribute a
                   WHERE a.attrelid OPERATOR(pg_catalog.=) pg_catalog.to_regclass('store')
                     AND a.attname OPERATOR(pg_catalog.=) 'generation' AND NOT a.attisdropped) THEN
        ALTER TABLE store ADD COLUMN generation bigint NOT NULL DEFAULT 0;
    END IF;
END
$generation$;

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
-- An index is created only where it is missing: CREATE INDEX IF NOT EXISTS
-- takes its table's SHARE lock before it looks, which would hold up every
-- renewal behind a Setup that waits (for a DBA's lock on another table).
DO $index$
BEGIN
    IF pg_catalog.to_regclass('leases_expires_at') IS NULL THEN
        CREATE INDEX leases_expires_at ON leases (expires_at);
    END IF;
END
$index$;

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
DO $index$
BEGIN
    IF pg_catalog.to_regclass('keys_lease') IS NULL THEN
        CREATE INDEX keys_lease ON keys (lease) WHERE lease IS NOT NULL;
    END IF;
END
$index$;

-- note_truncation changes the store's generation: TRUNCATE of the keys
-- (or of the leases, CASCADE) empties them without a write the nodes can
-- see, and the leases gone would read as merely lost. With the generation
-- changed, every node that wrote before stops with ErrDataLoss at its next
-- statement, as it must: the records that kept the node IDs' IDs apart are
-- gone. It runs as the role that truncates, which must also be allowed to
-- update the store's row, or the TRUNCATE fails.
CREATE OR REPLACE FUNCTION note_truncation() RETURNS trigger
LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT
AS $$
BEGIN
    UPDATE store SET generation = generation # random_id() # 1;
    RETURN NULL;
END
$$;
DO $trigger$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_trigger g
                   WHERE g.tgrelid OPERATOR(pg_catalog.=) pg_catalog.to_regclass('keys')
                     AND g.tgname OPERATOR(pg_catalog.=) 'keys_truncated') THEN
        CREATE TRIGGER keys_truncated AFTER TRUNCATE ON keys FOR EACH STATEMENT EXECUTE FUNCTION note_truncation();
    END IF;
END
$trigger$;

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

-- The store's row, if it is missing: at first, or after someone deleted
-- it (DELETE, TRUNCATE). Made anew beside keys that remain, it starts past
-- every revision they carry (a revision that went back would fail their
-- checks) and with a new generation, so that the nodes that wrote before,
-- which cannot know what was lost, stop with ErrDataLoss.
-- (The keys are read only then: a Setup that finds the row waits on no
-- lock a DBA holds on the keys table.)
DO $row$
BEGIN
    IF NOT EXISTS (SELECT FROM store) THEN
        INSERT INTO store (revision, identity, generation)
        SELECT coalesce(max(greatest(k.create_revision, k.mod_revision)), 0) + 1,
               coalesce(system_identifier(), random_id() | 1),
               CASE WHEN count(k.key) > 0 THEN random_id() ELSE 0 END
        FROM keys k
        ON CONFLICT (singleton) DO NOTHING;
    END IF;
END
$row$;

-- cluster_timeline returns the cluster's system identifier (which a
-- physical backup or a replica shares, and a new cluster does not), or NULL
-- where the functions' owner may not read it, and its timeline (which a
-- promotion or a recovery to a point in time advances), or 0 where it may
-- not. It reads no table, so that a renewal, which calls it, waits on no
-- lock but its lease's row.
CREATE OR REPLACE FUNCTION cluster_timeline(OUT cluster_id bigint, OUT timeline bigint)
LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT
AS $$
BEGIN
    cluster_id := system_identifier();
    timeline := 0;
    IF NOT pg_is_in_recovery()
       AND has_function_privilege('pg_catalog.pg_current_wal_lsn()', 'EXECUTE')
       AND has_function_privilege('pg_catalog.pg_walfile_name(pg_lsn)', 'EXECUTE') THEN
        -- A WAL file's name starts with the timeline, in 8 hex digits.
        timeline := ('x' || left(pg_walfile_name(pg_current_wal_lsn()), 8))::bit(32)::bigint;
    END IF;
END
$$;

-- server_identity returns who answers: cluster_timeline's, with the
-- identity recorded at setup where the system identifier cannot be read,
-- either mixed with the store's generation, and the store's revision. It runs with the caller's privileges: called by
-- a SECURITY DEFINER function below, as its owner; called by the fleet's
-- role directly, it fails on the store table.
CREATE OR REPLACE FUNCTION server_identity(OUT cluster_id bigint, OUT timeline bigint, OUT revision bigint)
LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT
AS $$
BEGIN
    SELECT coalesce(c.cluster_id, s.identity) # s.generation, c.timeline, s.revision INTO cluster_id, timeline, revision
    FROM cluster_timeline() c, store s;
END
$$;

-- lease_live reports whether a lease with expires_at and ttl lives: until
-- expires_at by the server's clock, or ttl from the server's start if that
-- is later, as etcd gives every lease a new TTL when a leader starts. A
-- start that lies ahead of the clock (the clock was stepped back) gives no
-- such grace: it would last as long as the step.
CREATE OR REPLACE FUNCTION lease_live(p_expires_at timestamptz, p_ttl bigint) RETURNS boolean
LANGUAGE sql VOLATILE SET search_path FROM CURRENT
AS $$
    SELECT p_expires_at > clock_timestamp()
        OR (pg_postmaster_start_time() <= clock_timestamp()
            AND pg_postmaster_start_time() + make_interval(secs => p_ttl) > clock_timestamp())
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
        RAISE EXCEPTION 'pgnode: the store''s row is missing, deleted by someone: run pgnode.Setup (or schema.sql) again, which makes it anew past every revision in the keys; the nodes that ran before then stop with ErrDataLoss, and new ones lease again'
            USING ERRCODE = 'no_data_found';
    END IF;
    -- No lease has more than its TTL left: a server clock stepped back
    -- would otherwise keep a dead node's lease, and its node ID, for as long
    -- as the step.
    UPDATE leases SET expires_at = clock_timestamp() + make_interval(secs => ttl)
    WHERE expires_at > clock_timestamp() + make_interval(secs => ttl);
    DELETE FROM leases WHERE NOT lease_live(expires_at, ttl);
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
    WHERE l.id = p_lease AND lease_live(l.expires_at, l.ttl)
    RETURNING l.ttl INTO ttl;
    ttl := coalesce(ttl, 0);
    -- Who answers, from the store's row if it can be read at once: a
    -- renewal waits on no lock but its lease's row, so that a lock on
    -- another table (a DBA's, a Setup's) holds up writes, not leases.
    -- Without it, a cluster ID of 0 and revision 0 are "not known", and
    -- not checked.
    BEGIN
        LOCK TABLE store IN ACCESS SHARE MODE NOWAIT;
        SELECT i.cluster_id, i.timeline, i.revision INTO cluster_id, timeline, revision FROM server_identity() i;
    EXCEPTION WHEN lock_not_available THEN
        SELECT 0, c.timeline, 0 INTO cluster_id, timeline, revision FROM cluster_timeline() c;
    END;
    cluster_id := coalesce(cluster_id, 0);
    revision := coalesce(revision, 0);
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
          SELECT FROM leases l WHERE l.id = k.lease AND lease_live(l.expires_at, l.ttl)))
    ORDER BY k.key
    LIMIT p_limit
$$;

-- schema_version answers a digest of this file (with this line's digest
-- taken as zeros): pgnode.Setup, finding the one its build has in a schema
-- that the running role owns, has nothing to do and takes no lock. A test
-- of the package says the digest to write here when the file changes.
CREATE OR REPLACE FUNCTION schema_version() RETURNS text
LANGUAGE sql IMMUTABLE SET search_path FROM CURRENT
AS $version$SELECT '1cefd3eed63b7ad3c2f7446ae36e0a17'$version$;

-- Nobody but the owner may call a function until granted: functions are
-- executable by PUBLIC when created.
REVOKE ALL ON FUNCTION max_answered(), random_id(), system_identifier(), cluster_timeline(), server_identity(),
    lease_live(timestamptz, bigint), note_truncation(), begin_write(), grant_lease(bigint), keep_alive(bigint),
    revoke_lease(bigint), put_if_absent(text, text), acquire(text, text, text, text, bigint, text),
    write_record(text, bigint, text, bigint, text, bigint, text, boolean),
    list_keys(text, boolean, text, boolean, bigint), schema_version() FROM PUBLIC;
