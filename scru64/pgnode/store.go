package pgnode

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fastid/scru128/internal/nodelease"
)

// store is the nodelease.Store over PostgreSQL: each method is one call of
// one of the functions schema.sql defines, one statement in a transaction
// of its own, so that it runs the same through PgBouncer in transaction
// mode. Every statement goes out in pgx's QueryExecModeExec, which uses
// the unnamed prepared statement in one round trip, whatever mode the pool
// was configured with: no statement is kept by name on a server connection
// that the next transaction may not get. The functions answer keys and
// values cut to 256 characters (max_answered in schema.sql), which bounds
// the bytes of every answer, as the Store interface asks.
type store struct {
	db     *pgxpool.Pool
	schema string // as given to WithSchema, for errors
	q      queries
}

// queries are the statements of a store, with its schema's name quoted in
// them.
type queries struct {
	grant, keepAlive, revoke, putIfAbsent, acquire, writeRecord, keys string
}

var _ nodelease.Store = (*store)(nil)

func newStore(db *pgxpool.Pool, schema string) *store {
	s := pgx.Identifier{schema}.Sanitize()
	return &store{db: db, schema: schema, q: queries{
		grant:       "SELECT lease, ttl FROM " + s + ".grant_lease($1)",
		keepAlive:   "SELECT ttl, cluster_id, timeline, revision FROM " + s + ".keep_alive($1)",
		revoke:      "SELECT FROM " + s + ".revoke_lease($1)",
		putIfAbsent: "SELECT current_value, cluster_id, timeline, revision FROM " + s + ".put_if_absent($1, $2)",
		acquire: "SELECT acquired, record_value, record_mod_revision, realm_create_revision, realm_value, holder_lease, " +
			"cluster_id, timeline, revision FROM " + s + ".acquire($1, $2, $3, $4, $5, $6)",
		writeRecord: "SELECT written, record_value, record_mod_revision, holder_lease, realm_create_revision, " +
			"cluster_id, timeline, revision FROM " + s + ".write_record($1, $2, $3, $4, $5, $6, $7, $8)",
		keys: "SELECT k FROM " + s + ".list_keys($1, $2, $3, $4, $5) k",
	}}
}

// mode is the first argument of every query: see store.
const mode = pgx.QueryExecModeExec

func (s *store) Grant(ctx context.Context, ttl int64) (lease, granted int64, err error) {
	err = s.db.QueryRow(ctx, s.q.grant, mode, ttl).Scan(&lease, &granted)
	return lease, granted, s.explain(err)
}

func (s *store) KeepAliveOnce(ctx context.Context, lease int64) (ttl int64, h nodelease.Header, err error) {
	var cluster, timeline int64
	err = s.db.QueryRow(ctx, s.q.keepAlive, mode, lease).Scan(&ttl, &cluster, &timeline, &h.Revision)
	if err != nil {
		return 0, nodelease.Header{}, s.explain(err)
	}
	h.ClusterID, h.Timeline = uint64(cluster), uint64(timeline)
	return ttl, h, nil
}

func (s *store) Revoke(ctx context.Context, lease int64) error {
	_, err := s.db.Exec(ctx, s.q.revoke, mode, lease)
	return s.explain(err)
}

func (s *store) PutIfAbsent(ctx context.Context, key, value string) (current string, h nodelease.Header, err error) {
	var cluster, timeline int64
	err = s.db.QueryRow(ctx, s.q.putIfAbsent, mode, key, value).Scan(&current, &cluster, &timeline, &h.Revision)
	if err != nil {
		return "", nodelease.Header{}, s.explain(err)
	}
	h.ClusterID, h.Timeline = uint64(cluster), uint64(timeline)
	return current, h, nil
}

func (s *store) Acquire(ctx context.Context, req nodelease.AcquireRequest) (nodelease.AcquireResult, error) {
	var (
		r                 nodelease.AcquireResult
		cluster, timeline int64
	)
	err := s.db.QueryRow(ctx, s.q.acquire, mode,
		req.RealmKey, req.RealmValue, req.HolderKey, req.HolderValue, req.Lease, req.RecordKey,
	).Scan(&r.Acquired, &r.Record.Value, &r.Record.ModRevision, &r.RealmCreateRevision, &r.RealmValue, &r.HolderLease,
		&cluster, &timeline, &r.Header.Revision)
	if err != nil {
		return nodelease.AcquireResult{}, s.explain(err)
	}
	r.Header.ClusterID, r.Header.Timeline = uint64(cluster), uint64(timeline)
	return r, nil
}

func (s *store) WriteRecord(ctx context.Context, w nodelease.RecordWrite) (nodelease.RecordResult, error) {
	var (
		r                 nodelease.RecordResult
		cluster, timeline int64
	)
	err := s.db.QueryRow(ctx, s.q.writeRecord, mode,
		w.HolderKey, w.Lease, w.RecordKey, w.ModRevision, w.RealmKey, w.RealmCreateRevision, w.Value, w.Delete,
	).Scan(&r.Written, &r.Record.Value, &r.Record.ModRevision, &r.HolderLease, &r.RealmCreateRevision,
		&cluster, &timeline, &r.Header.Revision)
	if err != nil {
		return nodelease.RecordResult{}, s.explain(err)
	}
	r.Header.ClusterID, r.Header.Timeline = uint64(cluster), uint64(timeline)
	if r.Written {
		r.Record, r.HolderLease, r.RealmCreateRevision = nodelease.Record{}, 0, 0
	}
	return r, nil
}

// Keys lists keys in [from, end). Text in PostgreSQL cannot hold a NUL
// byte, and none of the protocol's keys does; but the protocol makes
// bounds by appending one (from = the last key seen + "\x00"; end = the
// last key wanted + "\x00"), and in byte order a string followed by a NUL
// is the very next string after it: so such a bound becomes its string
// with the other inclusion.
func (s *store) Keys(ctx context.Context, from, end string, limit int64) ([]string, error) {
	from, fromIncluded := strings.CutSuffix(from, "\x00")
	end, endIncluded := strings.CutSuffix(end, "\x00")
	fromIncluded = !fromIncluded
	if strings.IndexByte(from, 0) >= 0 || strings.IndexByte(end, 0) >= 0 {
		return nil, fmt.Errorf("a key range %q..%q with a NUL byte inside a bound", from, end)
	}
	rows, err := s.db.Query(ctx, s.q.keys, mode, from, fromIncluded, end, endIncluded, limit)
	if err != nil {
		return nil, s.explain(err)
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return keys, s.explain(err)
}

// explain adds to an error that says the schema's functions are missing
// or may not be called what to do about it.
func (s *store) explain(err error) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return err
	}
	switch pe.Code {
	case "3F000", "42883", "42P01": // invalid_schema_name, undefined_function, undefined_table
		return fmt.Errorf("%w (run pgnode.Setup, or schema.sql, for schema %q)", err, s.schema)
	case "42501": // insufficient_privilege
		return fmt.Errorf("%w (grant this role USAGE on schema %q and EXECUTE on its functions: see pgnode.Setup)", err, s.schema)
	}
	return err
}
