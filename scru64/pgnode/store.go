package pgnode

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fastid/scru128/internal/nodelease"
)

// store is the nodelease.Store over PostgreSQL: each method is one call of
// one of the functions schema.sql defines, one statement in a transaction
// of its own, so that it runs the same through PgBouncer in transaction
// mode. The functions answer keys and values cut to 256 characters
// (max_answered in schema.sql), which bounds the bytes of every answer, as
// the Store interface asks.
//
// Each call goes out as a pipeline of two unnamed statements and one Sync,
// in one round trip (see call): SET TRANSACTION ISOLATION LEVEL READ
// COMMITTED, then the function's SELECT, which PostgreSQL runs as one
// implicit transaction. So the functions run at READ COMMITTED whatever
// default_transaction_isolation the database or the role sets: at
// REPEATABLE READ or SERIALIZABLE every write that waited for another on
// the store's row would fail with a serialization error (40001), and under
// load most of them did. No statement is kept by name on a server
// connection that the next transaction may not get, whatever mode the pool
// was configured with.
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

// readCommitted comes before every call, in its transaction: see store.
const readCommitted = "SET TRANSACTION ISOLATION LEVEL READ COMMITTED"

// call runs the statement q with args (int64, string or bool), as store
// says, and returns the rows it answered, each column in PostgreSQL's text
// form. The arguments go as text, typed by the server from the function's
// signature, never spliced into the SQL.
func (s *store) call(ctx context.Context, q string, args ...any) (rows [][]string, err error) {
	values := make([][]byte, len(args))
	for i, a := range args {
		switch a := a.(type) {
		case int64:
			values[i] = strconv.AppendInt(nil, a, 10)
		case string:
			values[i] = []byte(a)
		case bool:
			values[i] = []byte(strconv.FormatBool(a))
		default:
			return nil, fmt.Errorf("a call with an argument of type %T", a) // the code's own mistake
		}
	}
	conn, err := s.db.Acquire(ctx)
	if err != nil {
		return nil, s.explain(err)
	}
	defer conn.Release()
	batch := &pgconn.Batch{}
	batch.ExecParams(readCommitted, nil, nil, nil, nil)
	batch.ExecParams(q, values, nil, nil, nil)
	results, err := conn.Conn().PgConn().ExecBatch(ctx, batch).ReadAll()
	if err != nil {
		return nil, s.explain(err)
	}
	if len(results) != 2 {
		return nil, fmt.Errorf("a call answered with %d results, not 2", len(results))
	}
	for _, row := range results[1].Rows {
		cols := make([]string, len(row))
		for i, v := range row {
			cols[i] = string(v)
		}
		rows = append(rows, cols)
	}
	return rows, nil
}

// callOne is call for a function that answers one row of n columns.
func (s *store) callOne(ctx context.Context, n int, q string, args ...any) ([]string, error) {
	rows, err := s.call(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	if len(rows) != 1 || len(rows[0]) != n {
		return nil, fmt.Errorf("a call answered with %d rows, not one of %d columns", len(rows), n)
	}
	return rows[0], nil
}

// parser reads columns in PostgreSQL's text form, keeping the first
// error.
type parser struct{ err error }

func (p *parser) int64(col string) int64 {
	n, err := strconv.ParseInt(col, 10, 64)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("an answer %q where a bigint was expected", col)
	}
	return n
}

func (p *parser) bool(col string) bool {
	switch col {
	case "t":
		return true
	case "f":
		return false
	}
	if p.err == nil {
		p.err = fmt.Errorf("an answer %q where a boolean was expected", col)
	}
	return false
}

// header reads the cluster ID, timeline and revision every call but grant
// and revoke answers last.
func (p *parser) header(cols []string) nodelease.Header {
	return nodelease.Header{ClusterID: uint64(p.int64(cols[0])), Timeline: uint64(p.int64(cols[1])), Revision: p.int64(cols[2])}
}

func (s *store) Grant(ctx context.Context, ttl int64) (lease, granted int64, err error) {
	row, err := s.callOne(ctx, 2, s.q.grant, ttl)
	if err != nil {
		return 0, 0, err
	}
	var p parser
	lease, granted = p.int64(row[0]), p.int64(row[1])
	return lease, granted, p.err
}

func (s *store) KeepAliveOnce(ctx context.Context, lease int64) (ttl int64, h nodelease.Header, err error) {
	row, err := s.callOne(ctx, 4, s.q.keepAlive, lease)
	if err != nil {
		return 0, nodelease.Header{}, err
	}
	var p parser
	ttl, h = p.int64(row[0]), p.header(row[1:])
	if p.err != nil {
		return 0, nodelease.Header{}, p.err
	}
	return ttl, h, nil
}

func (s *store) Revoke(ctx context.Context, lease int64) error {
	_, err := s.call(ctx, s.q.revoke, lease)
	return err
}

func (s *store) PutIfAbsent(ctx context.Context, key, value string) (current string, h nodelease.Header, err error) {
	row, err := s.callOne(ctx, 4, s.q.putIfAbsent, key, value)
	if err != nil {
		return "", nodelease.Header{}, err
	}
	var p parser
	current, h = row[0], p.header(row[1:])
	if p.err != nil {
		return "", nodelease.Header{}, p.err
	}
	return current, h, nil
}

func (s *store) Acquire(ctx context.Context, req nodelease.AcquireRequest) (nodelease.AcquireResult, error) {
	row, err := s.callOne(ctx, 9, s.q.acquire,
		req.RealmKey, req.RealmValue, req.HolderKey, req.HolderValue, req.Lease, req.RecordKey)
	if err != nil {
		return nodelease.AcquireResult{}, err
	}
	var p parser
	r := nodelease.AcquireResult{
		Acquired:            p.bool(row[0]),
		Record:              nodelease.Record{Value: row[1], ModRevision: p.int64(row[2])},
		RealmCreateRevision: p.int64(row[3]),
		RealmValue:          row[4],
		HolderLease:         p.int64(row[5]),
		Header:              p.header(row[6:]),
	}
	if p.err != nil {
		return nodelease.AcquireResult{}, p.err
	}
	return r, nil
}

func (s *store) WriteRecord(ctx context.Context, w nodelease.RecordWrite) (nodelease.RecordResult, error) {
	row, err := s.callOne(ctx, 8, s.q.writeRecord,
		w.HolderKey, w.Lease, w.RecordKey, w.ModRevision, w.RealmKey, w.RealmCreateRevision, w.Value, w.Delete)
	if err != nil {
		return nodelease.RecordResult{}, err
	}
	var p parser
	r := nodelease.RecordResult{
		Written:             p.bool(row[0]),
		Record:              nodelease.Record{Value: row[1], ModRevision: p.int64(row[2])},
		HolderLease:         p.int64(row[3]),
		RealmCreateRevision: p.int64(row[4]),
		Header:              p.header(row[5:]),
	}
	if p.err != nil {
		return nodelease.RecordResult{}, p.err
	}
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
	rows, err := s.call(ctx, s.q.keys, from, fromIncluded, end, endIncluded, limit)
	if err != nil {
		return nil, err
	}
	keys := make([]string, len(rows))
	for i, row := range rows {
		if len(row) != 1 {
			return nil, fmt.Errorf("a listing answered with rows of %d columns, not one", len(row))
		}
		keys[i] = row[0]
	}
	return keys, nil
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
