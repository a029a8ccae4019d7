// Package pgnode leases SCRU64 node IDs from PostgreSQL, so that a fleet of
// processes (autoscaled pods, say) each mints under a node ID of its own
// without anyone assigning them by hand, and without a coordination
// service beyond the database the fleet already runs.
//
// [Setup] creates a schema of three tables and a few functions (or a DBA
// runs schema.sql, the same SQL, by hand); [Acquire] takes the lowest free
// node ID of a realm, attaches it to a lease that it keeps alive in the
// background, and returns a [Node] that mints [scru64.ID] values under it:
//
//	db, err := pgxpool.New(ctx, "postgres://fleet@db.internal/app")
//	if err != nil { ... }
//	if err := pgnode.Setup(ctx, db); err != nil { ... } // once, or schema.sql
//	node, err := pgnode.Acquire(ctx, db, pgnode.WithRealm("orders"))
//	if err != nil { ... }
//	defer node.Close(context.Background())
//	id, err := node.Generate()
//
// It is the protocol of package etcdnode, with PostgreSQL in etcd's place,
// and it promises the same, given a database that keeps what it
// acknowledged:
//
//   - Uniqueness: no two live nodes hold one node ID, and a node ID's next
//     holder starts after every ID its earlier holders issued, after a
//     Close or a crash, even on a machine whose clock is behind, through
//     partitions, server restarts, ended backends, and statements that a
//     network delays, repeats or reorders.
//   - Failing closed: the lease is measured by the database server's clock,
//     and a node that cannot renew it stops minting before it can expire
//     there. From then on every generate call returns an error matching
//     [ErrLeaseLost] and [Node.Done] is closed.
//   - Never silent: a node whose writes of its high-water mark fail while
//     its lease holds (a DBA's lock on the table past the role's
//     lock_timeout, say) says so at once through [Node.Stalled], mints on
//     up to the mark it last wrote, then returns an error matching
//     [ErrStalled] without blocking, and mints again once a write applies.
//   - Speed: minting an ID costs what [scru64.Generator.Generate] costs plus
//     one atomic load; it neither calls the database nor allocates.
//
// What voids uniqueness is the database losing or rewinding data it
// acknowledged: a restore from an older backup, a failover to an
// asynchronous replica that lacks the last commits, someone editing the
// tables. Between the loss and a node's next statement, another node may
// take its node ID. A node stops at that statement, with an error matching
// [ErrDataLoss] where it can tell: the cluster's system identifier or
// timeline changed, the keys were truncated or the store's row made anew
// (schema.sql's generation), the store's revision went back, or its own
// record or its realm's row did.
// The guide at https://github.com/fastid/scru128/blob/main/docs/fleet.md
// compares the two stores and says which failures are safe and which are
// not; the protocol, with its proofs and figures, is told once, in the
// documentation of the internal package that implements it for this
// package, etcdnode and the command-line tool:
// https://pkg.go.dev/github.com/fastid/scru128/internal/nodelease.
//
// # In production
//
// Every request is one call of one function, a transaction of its own at
// READ COMMITTED whatever default_transaction_isolation says: two unnamed
// statements (SET TRANSACTION and the call) and one Sync, in one round
// trip, whatever the pool's default mode. The pool may go through
// PgBouncer in transaction mode, and nothing is kept in a session between
// transactions (no named prepared statements, session locks, temporary
// tables or LISTEN). The fleet's role needs USAGE on the schema
// and EXECUTE on its functions, and no privilege on its tables (see
// schema.sql); statement_timeout, lock_timeout and
// idle_in_transaction_session_timeout may be set for it as for any role,
// as long as they leave a statement a fraction of the TTL. A pool reaches
// a new primary after a failover if its connection string lists the
// servers with target_session_attrs=read-write; the nodes that were
// running stop with ErrDataLoss when the new primary answers (its
// timeline is another), and new ones can be acquired at once. The tables
// are small (two rows per node, one per node ID ever used and one per
// realm); each node renews its lease every TTL/4 and writes its record
// about every 2.5 s. Every write but a renewal locks one row for the length
// of a short transaction, so that such writes are serialized.
//
// A statement is first given at most the TTL's safety margin (TTL/10 + 250
// ms, up to 2 s); one that fails or times out is sent again with twice the
// time (a step of Acquire or Close up to five times, a write of the record
// three times a round), and a renewal not answered in that time has a
// second sent beside it, the first answer counting. pgx cancels a
// statement it gives up on at the server. Renewals wait on no lock but
// their lease's row (they read the store's row only if its lock is free at
// once), so whatever holds up the keys table or the store's row (a DBA's
// ALTER TABLE, VACUUM FULL or LOCK TABLE, a long transaction) stops the
// writes of the records and not the leases: the nodes report a stall
// ([Node.Stalled], [ErrStalled]) and mint on up to their high-water marks.
// With a lock_timeout set for the role, the stall names the server's
// answer (SQLSTATE 55P03) rather than a timeout.
//
// The functions answer keys and values cut to 256 characters: every one a
// node writes is shorter, and a longer row, which no node wrote, is not
// read whole. Such rows, and any a node cannot use, are [ErrBadData].
//
// Testing needs a real PostgreSQL; this module's tests run against the
// server SCRU128_TEST_POSTGRES_DSN names and servers (and a PgBouncer) of
// their own on loopback ports, and inject faults through a proxy that
// speaks PostgreSQL's wire protocol.
package pgnode

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fastid/scru128/internal/nodelease"
	"github.com/fastid/scru128/scru64"
)

// Errors returned by this package. Each reads "pgnode: " and what it
// means, for example "pgnode: lease lost", and so does every error this
// package's functions and methods return, other than the scru64 package's
// own (a clock outside SCRU64's range): "pgnode: lease lost: node ID 3,
// ...". Under errors.Is those errors match these sentinels, and under
// errors.As they are the typed errors below; errors from pgx and the
// server are wrapped with %w, so errors.Is and errors.As see through to
// them too (a *pgconn.PgError, say).
//
// The typed errors are the protocol's, shared with package etcdnode: their
// own Error methods leave the prefix out ("lease lost: node ID 3, ..."),
// and what this package returns carries it around them.
var (
	// ErrNoFreeNodeID means every node ID of the realm, or of the range
	// given to WithNodeIDRange or WithNodeID, is held by a live lease.
	ErrNoFreeNodeID = prefixed(nodelease.ErrNoFreeNodeID)
	// ErrLeaseLost means the node stopped minting before Close: no renewal
	// of its lease was answered in time (the lease could have expired),
	// the lease was revoked or expired, the node ID is no longer the
	// node's, or the database lost data. The error is a [*LostError].
	ErrLeaseLost = prefixed(nodelease.ErrLeaseLost)
	// ErrDataLoss means the node saw the database lose or rewind data: IDs
	// may have been issued twice around the loss. Such an error is a
	// [*LostError] and matches ErrLeaseLost too.
	ErrDataLoss error = &nodelease.PrefixedError{Prefix: errorPrefix, Err: nodelease.ErrDataLoss, Text: storeName + " lost or rewound data"}
	// ErrClosed means Close was called (or the Node was not made by
	// Acquire).
	ErrClosed = prefixed(nodelease.ErrClosed)
	// ErrInvalidOption means an option's value was rejected; the error is
	// an [*OptionError].
	ErrInvalidOption = prefixed(nodelease.ErrInvalidOption)
	// ErrRealmMismatch means the realm uses another node ID size than the
	// one asked for (the error is a [*RealmError]): another realm, or the
	// realm's size, resolves it.
	ErrRealmMismatch = prefixed(nodelease.ErrRealmMismatch)
	// ErrBadData means the tables hold, where a node reads, a row that no
	// node wrote and that it cannot use: a realm row that holds no node
	// ID size, a continuity record that is not an ID of its node ID, a
	// holder row whose key is not of the holder rows' form. The error is
	// a [*DataError] or a [*RecordError], which names the key and the
	// value; no option resolves it: the rows need looking at.
	ErrBadData error = &nodelease.PrefixedError{Prefix: errorPrefix, Err: nodelease.ErrBadData, Text: "unexpected data in " + storeName}
	// ErrStalled means the node cannot write its continuity record while
	// its lease holds (a lock held on the table past the role's
	// lock_timeout, say), so that it mints no ID past the bound it last
	// wrote. The error is a [*StallError]; see [Node.Stalled].
	ErrStalled = prefixed(nodelease.ErrStalled)
)

const (
	// errorPrefix is the package name that starts every error text.
	errorPrefix = "pgnode"
	// storeName is how the protocol's errors name the store.
	storeName = "PostgreSQL"
)

// prefixed returns err with this package's prefix. Around one of the
// protocol's sentinels it is this package's sentinel: every error that
// matches the protocol's matches it too.
func prefixed(err error) error { return &nodelease.PrefixedError{Prefix: errorPrefix, Err: err} }

// OptionError reports a rejected option: which, and why. It matches
// [ErrInvalidOption] under errors.Is. Its Error method words it without
// the package prefix: `invalid option WithTTL: 1.5s is not a whole number
// of seconds`; Acquire returns it with the prefix around it.
type OptionError = nodelease.OptionError

// RealmError reports that the realm records another node ID size. It
// matches [ErrRealmMismatch] under errors.Is. Its Key is the realm's
// name followed by "/size".
type RealmError = nodelease.RealmError

// RecordError reports a continuity record that is not an ID of its node
// ID. It matches [ErrBadData] under errors.Is.
type RecordError = nodelease.RecordError

// DataError reports a row that no node wrote and that a node cannot use,
// and names its key and value. It matches [ErrBadData] under errors.Is.
type DataError = nodelease.DataError

// StallError reports that a node's writes of its continuity record fail:
// since when, how often, the bound minting stops at, and the last write's
// error, through which errors.Is and errors.As see the server's (a
// *pgconn.PgError with its SQLSTATE, say). It matches [ErrStalled] under
// errors.Is.
type StallError = nodelease.StallError

// LostError reports why a node stopped minting before Close. It matches
// [ErrLeaseLost], and [ErrDataLoss] when its DataLoss field is set.
type LostError = nodelease.LostError

// StoreError reports a request to the database that failed, and what it
// was for.
type StoreError = nodelease.StoreError

// RollbackError reports that the clock is too far behind the last ID
// minted under the node ID to mint now, and how long until it is not. It
// matches [scru64.ErrClockRollback].
type RollbackError = nodelease.RollbackError

// MaxSleep is the longest wait for the clock that [Node.GenerateOrSleep]
// sleeps through (a minute); it returns a longer one as a [*RollbackError].
const MaxSleep = nodelease.MaxSleep

// Default option values.
const (
	DefaultSchema     = "scru64"
	DefaultRealm      = "default"
	DefaultNodeIDSize = nodelease.DefaultNodeIDSize // 8: 256 nodes, 65,536 IDs per 256 ms each
	DefaultTTL        = nodelease.DefaultTTL        // 10 s
)

// Limits on option values.
const (
	// MaxRealmLength is the longest realm name, in bytes.
	MaxRealmLength = 200
	// MaxTTL is the longest lease TTL: 9e9 seconds, as etcd's.
	MaxTTL = 9_000_000_000 * time.Second
	// maxSchemaLength is PostgreSQL's longest identifier (NAMEDATALEN-1):
	// it cuts longer names short, silently, and two schemas would be one.
	maxSchemaLength = 63
)

// Option configures Setup and Acquire.
type Option func(*options)

// options is what the options set: the protocol's config, the schema and
// the realm.
type options struct {
	cfg    nodelease.Config
	schema string
	realm  string
}

// WithSchema sets the schema that holds the tables and functions (default
// [DefaultSchema]), for Setup and Acquire alike. A name is taken as it is
// written, case and all (it is quoted): 1 to 63 bytes of UTF-8, no NUL.
func WithSchema(name string) Option {
	return func(o *options) { o.schema = name }
}

// WithRealm sets the realm whose node IDs Acquire leases (default
// [DefaultRealm]): the analogue of etcdnode's key prefix. Nodes of one
// realm have one node ID size and node IDs unique among them; realms
// share nothing but the tables. A name is 1 to [MaxRealmLength] bytes of
// UTF-8 without control characters, in which "/node/" is not followed by
// a digit (the realm's rows would be listed among another realm's: those
// of "a/node/1" among the holder rows of "a").
func WithRealm(name string) Option {
	return func(o *options) { o.realm = name }
}

// WithNodeIDSize sets the node ID size in bits, 1 to 23 (default
// [DefaultNodeIDSize]): 2^size nodes can each mint 2^(24-size) IDs per
// 256-ms tick before borrowing from the next tick.
func WithNodeIDSize(size uint8) Option {
	return func(o *options) { o.cfg.NodeIDSize = size }
}

// WithTTL sets the lease's time to live, a whole number of seconds from 1
// to [MaxTTL] (default [DefaultTTL]). A crashed node's node ID is free
// again after about TTL; a node that loses contact with the database stops
// minting after about 0.9 TTL - 250 ms.
func WithTTL(ttl time.Duration) Option {
	return func(o *options) { o.cfg.TTL = ttl }
}

// WithNodeIDRange limits Acquire to node IDs min..max (inclusive), which
// must fit the node ID size; Acquire takes the lowest free one, or returns
// [ErrNoFreeNodeID].
func WithNodeIDRange(min, max uint32) Option {
	return func(o *options) { o.cfg.HasRange, o.cfg.MinNodeID, o.cfg.MaxNodeID = true, min, max }
}

// WithNodeID makes Acquire take exactly this node ID, or return
// [ErrNoFreeNodeID] if it is held. It is WithNodeIDRange(id, id).
func WithNodeID(id uint32) Option { return WithNodeIDRange(id, id) }

// WithClock sets the wall clock IDs are stamped from (default, or nil:
// time.Now), for tests and simulations; it is read about once a second and
// followed with the monotonic clock in between. The lease is measured by
// the database server's clock and, on the node's side, by the process's
// monotonic clock, never by this one.
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.cfg.Wall = now }
}

// WithCounterMode sets the generator's counter mode (see
// [scru64.NewGeneratorWithCounterMode]; nil means its default).
func WithCounterMode(mode scru64.CounterMode) Option {
	return func(o *options) { o.cfg.CounterMode = mode }
}

// optionNames is the one place that names a rejected value as this
// package's user knows it.
var optionNames = map[nodelease.Field]string{
	nodelease.FieldStore:      "Acquire's pool",
	nodelease.FieldPrefix:     "WithRealm",
	nodelease.FieldNodeIDSize: "WithNodeIDSize",
	nodelease.FieldTTL:        "WithTTL",
	nodelease.FieldRange:      "WithNodeIDRange",
}

// apply returns the options' values, or an *OptionError (with the prefix)
// for a nil option, a nil pool or a bad schema, and, when leasing, a bad
// realm or TTL; the other values are checked by the protocol. fn names the
// function called.
func apply(fn string, leasing bool, db *pgxpool.Pool, opts []Option) (options, error) {
	o := options{cfg: nodelease.DefaultConfig(), schema: DefaultSchema, realm: DefaultRealm}
	for i, opt := range opts {
		if opt == nil {
			return o, prefixed(&OptionError{Option: fn, Reason: "option " + strconv.Itoa(i) + " is nil"})
		}
		opt(&o)
	}
	fail := func(field nodelease.Field, option, reason string) (options, error) {
		return o, prefixed(&OptionError{Field: field, Option: option, Reason: reason})
	}
	if db == nil {
		return fail(nodelease.FieldStore, fn+"'s pool", "no pool (nil)")
	}
	if reason := badName(o.schema, maxSchemaLength, false); reason != "" {
		return fail(nodelease.FieldPrefix, "WithSchema", "schema "+strconv.Quote(o.schema)+" "+reason)
	}
	if !leasing {
		return o, nil
	}
	if reason := badName(o.realm, MaxRealmLength, true); reason != "" {
		return fail(nodelease.FieldPrefix, "WithRealm", "realm "+strconv.Quote(o.realm)+" "+reason)
	}
	if outer, ok := nestedIn(o.realm); ok {
		return fail(nodelease.FieldPrefix, "WithRealm", "realm "+strconv.Quote(o.realm)+
			" holds \"/node/\" and a digit: its rows would be listed among the holder rows of realm "+strconv.Quote(outer))
	}
	switch ttl := o.cfg.TTL; {
	case ttl < time.Second:
		return fail(nodelease.FieldTTL, "WithTTL", ttl.String()+" is below 1s")
	case ttl%time.Second != 0:
		return fail(nodelease.FieldTTL, "WithTTL", ttl.String()+" is not a whole number of seconds (leases count seconds)")
	case ttl > MaxTTL:
		return fail(nodelease.FieldTTL, "WithTTL", ttl.String()+" is above the longest TTL, 9e9 seconds")
	}
	// The realm's keys are its name and a slash, then etcd's layout (see
	// nodelease): "orders/size", "orders/node/0000042",
	// "orders/last/0000042". A name may hold slashes; no key of one realm
	// is a key of another, since each ends in "size" or in a word and
	// seven digits. A listing of realm R's holder keys runs from
	// R/node/0000000 to R/node/8388607 at most: what lies between starts
	// with R/node/ and a digit, which a key of another realm R' does only
	// if R' holds "/node/" and a digit (nestedIn), and the protocol
	// refuses a listed key of another form as data it did not write.
	o.cfg.Prefix = o.realm + "/"
	o.cfg.ErrorPrefix, o.cfg.StoreName = errorPrefix, storeName
	// The store changes its cluster ID when its keys are truncated or its
	// row is made anew (see schema.sql's generation).
	o.cfg.ClusterChanged = "its keys were truncated, or its store's row deleted and made anew"
	return o, nil
}

// nestedIn reports whether a realm's name holds "/node/" followed by a
// digit, and returns the realm whose holder keys its keys would be listed
// among: the name up to the first such "/node/".
func nestedIn(realm string) (outer string, ok bool) {
	const node = "/node/"
	for i := 0; ; {
		j := strings.Index(realm[i:], node)
		if j < 0 {
			return "", false
		}
		if k := i + j + len(node); k < len(realm) && '0' <= realm[k] && realm[k] <= '9' {
			return realm[:i+j], true
		}
		i += j + 1
	}
}

// badName returns why name is not a valid schema or realm name, or "".
func badName(name string, maxLen int, noControl bool) string {
	switch {
	case name == "":
		return "is empty"
	case len(name) > maxLen:
		return "is " + strconv.Itoa(len(name)) + " bytes long, more than " + strconv.Itoa(maxLen)
	case !utf8.ValidString(name):
		return "is not valid UTF-8"
	case strings.IndexByte(name, 0) >= 0:
		return "holds a NUL byte"
	case noControl && strings.IndexFunc(name, unicode.IsControl) >= 0:
		return "holds a control character"
	}
	return ""
}

// schemaSQL is schema.sql: the tables and functions, for Setup and for a
// DBA to run by hand.
//
//go:embed schema.sql
var schemaSQL string

// endOfHeader ends the header of schema.sql, the lines that name the
// schema; Setup runs what follows after a header of its own.
const endOfHeader = "-- end of header\n"

// setupLock is mixed into the key of the transaction-level advisory lock
// that Setup takes for a schema (see setupLockKey).
const setupLock = 0x5c12_8640_0000_0001

// setupLockKey returns the key of the advisory lock that Setup takes while
// it changes schema, so that processes that start at once change it one
// after another rather than race to create the same objects: one key per
// schema, so that a Setup of one schema never waits for another's.
func setupLockKey(schema string) int64 {
	h := fnv.New64a()
	h.Write([]byte(schema))
	return int64(h.Sum64() ^ setupLock)
}

// schemaVersion is what the function schema_version of schema.sql answers
// (schemaVersionRE finds it): a digest of the file, which
// TestSchemaVersionIsTheDigest holds to schemaDigest. A Setup that finds it,
// in a schema that the running role owns, has nothing to do, and does
// nothing: it takes no lock at all.
var schemaVersion = func() string {
	m := schemaVersionRE.FindStringSubmatch(schemaSQL)
	if m == nil {
		return ""
	}
	return m[1]
}()

// schemaVersionRE finds the digest in schema.sql's schema_version.
var schemaVersionRE = regexp.MustCompile(`\$version\$SELECT '([0-9a-f]{32})'\$version\$`)

// schemaDigest returns the digest of sql, a schema.sql, with the digest
// its schema_version answers taken as zeros.
func schemaDigest(sql string) string {
	sql = schemaVersionRE.ReplaceAllLiteralString(sql, "$version$SELECT '"+strings.Repeat("0", 32)+"'$version$")
	sum := sha256.Sum256([]byte(sql))
	return hex.EncodeToString(sum[:16])
}

// Setup creates, in the schema that WithSchema names (default
// [DefaultSchema], created if absent), the tables and functions that
// Acquire uses, in one transaction. It is idempotent: run again (by every
// process at start, say), it leaves the tables and their rows as they are
// and replaces the functions with this version's; concurrent calls that
// change one schema wait for each other. It uses only WithSchema and
// ignores the other options, so that one list of options serves Setup and
// Acquire.
//
// Setup runs schema.sql, which is in this module's source for a DBA to run
// by hand instead (psql -1 -f schema.sql) and says what to GRANT the
// fleet's role: the role that runs it owns the objects, and the role that
// leases needs nothing but USAGE on the schema and EXECUTE on the
// functions.
//
// Setup runs beside a live fleet (a rolling deploy runs it in every new
// process). It first looks, in one statement that takes no lock, whether
// the schema is the running role's and already this build's: then it is
// done. Else it takes an advisory lock of the schema's own, and changes the
// schema without taking any lock that renewals or writes of the fleet wait
// on (it creates an index only where one is missing, and does not check
// function bodies against the tables); it waits for nothing the fleet
// holds but the store's row, briefly, if the row must be made. It sets its
// search path before it calls any function, and runs at READ COMMITTED
// whatever default_transaction_isolation says.
//
// It refuses a schema that another role owns, or that holds an object
// another role owns (any role with CREATE on the database may create the
// schema first, and its owner could replace what the SECURITY DEFINER
// functions call), with an error naming each and its owner.
//
// It returns an error matching [ErrInvalidOption] for a bad schema name or
// a nil pool, and the server's error, wrapped, if the SQL fails (a role
// that may not create the schema, a schema it does not own, say).
func Setup(ctx context.Context, db *pgxpool.Pool, opts ...Option) error {
	o, err := apply("Setup", false, db, opts)
	if err != nil {
		return err
	}
	_, body, ok := strings.Cut(schemaSQL, endOfHeader)
	if !ok {
		return errors.New(errorPrefix + ": this build's schema.sql has no end of header") // a test pins it
	}
	current, err := schemaIsCurrent(ctx, db, o.schema)
	if err != nil {
		return fmt.Errorf("%s: setting up schema %q: %w", errorPrefix, o.schema, err)
	}
	if current {
		return nil
	}
	schema := pgx.Identifier{o.schema}.Sanitize()
	header := readCommitted + ";\n" +
		"SET LOCAL search_path = pg_catalog, pg_temp;\n" +
		"SET LOCAL check_function_bodies = off;\n" +
		"SELECT pg_catalog.pg_advisory_xact_lock(" + strconv.FormatInt(setupLockKey(o.schema), 10) + ");\n" +
		"CREATE SCHEMA IF NOT EXISTS " + schema + ";\n" +
		"SET LOCAL search_path = " + schema + ", pg_temp;\n"
	// One simple-protocol call runs the whole script in one implicit
	// transaction; SET LOCAL keeps the settings to it.
	if _, err := db.Exec(ctx, header+body, pgx.QueryExecModeSimpleProtocol); err != nil {
		return fmt.Errorf("%s: setting up schema %q: %w", errorPrefix, o.schema, err)
	}
	return nil
}

// schemaIsCurrent reports whether schema exists, is owned by the role that
// asks, holds this build's schema_version, owned by it too, and its store
// its row: two statements, the first of which takes no lock, the second
// only the store table's ACCESS SHARE lock, which no renewal and no write
// waits on. (Only the schema's owner can create objects in it, or let
// others.)
func schemaIsCurrent(ctx context.Context, db *pgxpool.Pool, schema string) (bool, error) {
	conn, err := db.Acquire(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Release()
	batch := &pgconn.Batch{}
	batch.ExecParams(readCommitted, nil, nil, nil, nil)
	batch.ExecParams("SET LOCAL search_path = pg_catalog, pg_temp", nil, nil, nil, nil)
	batch.ExecParams(`SELECT pg_catalog.count(*) FROM pg_catalog.pg_namespace n
		JOIN pg_catalog.pg_proc p ON p.pronamespace OPERATOR(pg_catalog.=) n.oid
		JOIN pg_catalog.pg_roles r ON r.rolname OPERATOR(pg_catalog.=) CURRENT_USER
		WHERE n.nspname OPERATOR(pg_catalog.=) $1 AND n.nspowner OPERATOR(pg_catalog.=) r.oid
		AND p.proname OPERATOR(pg_catalog.=) 'schema_version' AND p.proowner OPERATOR(pg_catalog.=) r.oid
		AND p.prosrc OPERATOR(pg_catalog.=) $2`,
		[][]byte{[]byte(schema), []byte("SELECT '" + schemaVersion + "'")}, nil, nil, nil)
	results, err := conn.Conn().PgConn().ExecBatch(ctx, batch).ReadAll()
	if err != nil {
		return false, err
	}
	if len(results) != 3 || len(results[2].Rows) != 1 || len(results[2].Rows[0]) != 1 {
		return false, errors.New("an answer of another shape to the check of the schema's version")
	}
	if string(results[2].Rows[0][0]) != "1" {
		return false, nil
	}
	// The schema is the role's own: its store table may be read. A store
	// whose row was deleted needs the row made anew.
	batch = &pgconn.Batch{}
	batch.ExecParams(readCommitted, nil, nil, nil, nil)
	batch.ExecParams("SET LOCAL search_path = pg_catalog, pg_temp", nil, nil, nil, nil)
	batch.ExecParams("SELECT pg_catalog.count(*) FROM "+pgx.Identifier{schema, "store"}.Sanitize(), nil, nil, nil, nil)
	results, err = conn.Conn().PgConn().ExecBatch(ctx, batch).ReadAll()
	if err != nil {
		return false, err
	}
	if len(results) != 3 || len(results[2].Rows) != 1 || len(results[2].Rows[0]) != 1 {
		return false, errors.New("an answer of another shape to the check of the store's row")
	}
	return string(results[2].Rows[0][0]) == "1", nil
}

// Node mints SCRU64 IDs under a node ID leased from PostgreSQL. Its methods
// are safe for concurrent use. A Node is done when its lease is lost or it
// is closed: Done is closed, and every generate call returns an error
// matching [ErrLeaseLost] or [ErrClosed]. Make one with [Acquire]; methods
// of a Node made otherwise return [ErrClosed].
type Node struct{ core *nodelease.Node }

var errNotAcquired = fmt.Errorf("%w: the Node was not returned by pgnode.Acquire", ErrClosed)

// Acquire leases the lowest free node ID of the realm and returns a Node
// minting under it, its lease kept alive in the background until
// [Node.Close] or until the lease is lost. It takes the node ID with one
// function call, a transaction that creates the node ID's holder row if
// absent, attached to a new lease with the TTL, and reads the node ID's
// continuity record; concurrent Acquires each get another node ID. Before
// returning it renews the lease once and writes the first high-water mark:
// six statements when no other node races for the same node ID. The pool
// is used for the Node's life: do not close it before the Node.
//
// Each statement is given at most the TTL's safety margin (TTL/10 + 250
// ms, up to 2 s) at first, and a step whose statement fails is tried
// again, up to five times while ctx lasts, each time with twice as long as
// before, so that a slow server answers all the same; a statement whose
// answer was lost after it applied is recognized when it is sent again
// (the node ID it took is taken, not skipped).
//
// It returns an [*OptionError] for a bad option or a nil pool, a
// [*RealmError] if the realm uses another node ID size, a [*DataError] or
// [*RecordError] (matching [ErrBadData]) for a row in the tables that no
// node wrote (a realm row that holds no node ID size, a continuity record
// that is no ID of its node ID, a holder row of another form), an error
// matching [ErrNoFreeNodeID] if every node ID is held, a [*LostError] if
// the lease was lost before the first ID, and a [*StoreError] wrapping
// pgx's error for a step that failed every attempt (one that says to run
// Setup if the schema's functions are missing). On error it leaves
// the database as it found it: it puts the record back if it may have
// written it, and revokes the lease it granted, spending at most 2 s on
// that whatever ctx says (if the record cannot be put back, the error says
// so). ctx bounds Acquire only, not the Node's life.
func Acquire(ctx context.Context, db *pgxpool.Pool, opts ...Option) (*Node, error) {
	o, err := apply("Acquire", true, db, opts)
	if err != nil {
		return nil, err
	}
	core, err := nodelease.Acquire(ctx, newStore(db, o.schema), o.cfg)
	if oe := (*OptionError)(nil); errors.As(err, &oe) && oe.Option == "" {
		oe.Option = optionNames[oe.Field]
	}
	if err != nil {
		return nil, err
	}
	return &Node{core}, nil
}

// Generate returns a new ID stamped with the clock. It returns a
// [*LostError] (matching [ErrLeaseLost]) or an error matching [ErrClosed]
// once the node is done, a [*StallError] (matching [ErrStalled]) while
// writes of the high-water mark fail and IDs have reached the last one
// written, a [*RollbackError] (matching [scru64.ErrClockRollback]) if the
// clock is more than [scru64.DefaultRollbackAllowance] behind the last ID,
// and [scru64.ErrInvalidTimestamp] for a clock outside SCRU64's range. It
// does not allocate when it returns an ID and, as long as the clock runs
// steadily, does not wait: the high-water mark in the database is kept
// about 5 s ahead of what the node mints, and only if IDs outrun it (the
// clock stepped forward, or a burst overflowed the counter for seconds)
// does Generate wait for the next write of it, for at most three times the
// TTL's safety margin, up to 6 s (3.75 s with the default TTL); if no
// write has raised it by then, it returns a [*StallError].
func (n *Node) Generate() (scru64.ID, error) {
	if n == nil {
		return 0, errNotAcquired
	}
	return n.core.Generate() // nil-safe, so that this wrapper inlines
}

// GenerateOrSleep is Generate that, instead of returning a
// [*RollbackError], sleeps until the clock is back within the rollback
// allowance of the last ID, if that takes at most [MaxSleep] (a minute). A
// longer wait, which only a record left far ahead by a clock that ran fast
// causes, it returns at once as the *RollbackError, which says how long;
// [Node.ClockWait] tells the same before minting. Its other errors are
// those of Generate: it does not sleep through a [*StallError].
func (n *Node) GenerateOrSleep() (scru64.ID, error) {
	if n == nil {
		return 0, errNotAcquired
	}
	return n.core.GenerateOrSleep()
}

// NewString returns the 12-digit text of an ID from GenerateOrSleep,
// with its errors. It makes one allocation, the string.
func (n *Node) NewString() (string, error) {
	id, err := n.GenerateOrSleep()
	if err != nil {
		return "", err
	}
	return id.String(), nil
}

// ClockWait returns how long Generate would now keep failing for want of a
// later clock (see [RollbackError]): 0 if it can mint now, for a Node not
// made by Acquire, and for a node that is done.
func (n *Node) ClockWait() time.Duration {
	if n == nil || n.core == nil {
		return 0
	}
	return n.core.ClockWait()
}

// NodeID returns the leased node ID (0 for a Node not made by Acquire).
func (n *Node) NodeID() uint32 {
	if n == nil || n.core == nil {
		return 0
	}
	return n.core.NodeID()
}

// NodeIDSize returns the node ID size (0 for a Node not made by Acquire).
func (n *Node) NodeIDSize() uint8 {
	if n == nil || n.core == nil {
		return 0
	}
	return n.core.NodeIDSize()
}

// NodeSpec returns a node spec that continues after the last ID minted
// (see [scru64.Generator.NodeSpec]), or the zero NodeSpec for a Node not
// made by Acquire.
func (n *Node) NodeSpec() scru64.NodeSpec {
	if n == nil || n.core == nil {
		return scru64.NodeSpec{}
	}
	return n.core.NodeSpec()
}

// LeaseID returns the lease that holds the node ID, the id of its row in
// the leases table (0 for a Node not made by Acquire).
func (n *Node) LeaseID() int64 {
	if n == nil || n.core == nil {
		return 0
	}
	return n.core.Lease()
}

// closedChan is what Done returns for a Node not made by Acquire.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Done returns a channel that is closed when the node stops minting,
// because its lease was lost or it was closed; [Node.Err] says which.
func (n *Node) Done() <-chan struct{} {
	if n == nil || n.core == nil {
		return closedChan
	}
	return n.core.Done()
}

// Err returns nil while the node mints, and afterwards a [*LostError]
// (matching [ErrLeaseLost]) or an error matching [ErrClosed] that says why
// it stopped.
func (n *Node) Err() error {
	if n == nil || n.core == nil {
		return errNotAcquired
	}
	return n.core.Err()
}

// Stalled returns nil while the node's writes of its high-water mark
// succeed, and a [*StallError] (matching [ErrStalled]) from the first
// failed round of writes until a write applies, while the node lives: the
// server refuses the writes or they get no answer in time (a lock held on
// the keys table past the role's lock_timeout or statement_timeout, say),
// while renewals of the lease, which take no lock on that table, may
// still succeed. The node mints on up to the mark it last wrote, about 5 s
// past its last successful write; then Generate returns the same error,
// at once, until a write applies. The node keeps trying, up to three
// statements at a time, at first every quarter of a second and then
// every 2 s. The error names the server's answer to the last write (errors.As
// finds its *pgconn.PgError), for a log line or an alert; it is nil for a
// node that is done (see [Node.Err]) or not made by Acquire.
func (n *Node) Stalled() error {
	if n == nil || n.core == nil {
		return nil
	}
	return n.core.Stalled()
}

// Close stops minting, writes the last ID issued to the node ID's
// continuity record and revokes the lease, which frees the node ID; the
// next holder starts right after that ID. Afterwards every generate call
// returns [ErrClosed]. ctx bounds the two steps, each tried again as
// Acquire's are (a write whose answer was lost is recognized): a caller
// that must end soon cancels it, and the node ID is then free when the
// lease expires. The write is fenced like every write of the record: it applies
// only while this node holds the node ID and the record is its own last
// write.
//
// The node is closed whatever Close returns. It returns an error matching
// [ErrClosed] if the node was already closed, a [*LostError] if the lease
// had been lost (the record then keeps the high-water mark, which is safe),
// and a [*StoreError] wrapping pgx's error for a failed statement; a lease
// that could not be revoked expires after its TTL.
func (n *Node) Close(ctx context.Context) error {
	if n == nil || n.core == nil {
		return errNotAcquired
	}
	return n.core.Close(ctx)
}
