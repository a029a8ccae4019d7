package scru64_test

// The SCRU64 sample of docs/formats.md, as a test: it needs the environment and a
// database, which an example cannot set up.

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"testing"

	"github.com/fastid/scru128/scru64"
)

func TestREADMESample(t *testing.T) {
	saved := scru64.GlobalGenerator
	defer func() { scru64.GlobalGenerator = saved }()
	scru64.GlobalGenerator = new(scru64.Global)
	t.Setenv("SCRU64_NODE_SPEC", "42/8")
	rec := &recorder{}
	db := sql.OpenDB(rec)
	defer db.Close()

	id := scru64.New()                           // needs SCRU64_NODE_SPEC, e.g. 42/8
	fmt.Println(id, id.Int64())                  // 0u375nxqh5cq 110009624767914842
	db.Exec("INSERT INTO t (id) VALUES (?)", id) // stored as int64; Scan reads it back

	if id.NodeCtr()>>16 != 42 {
		t.Errorf("%s has node_ctr %#x, not node 42 of 8 bits", id, id.NodeCtr())
	}
	if len(rec.args) != 1 || rec.args[0] != id.Int64() {
		t.Fatalf("the database got %#v, want the int64 %d", rec.args, id.Int64())
	}
	var back scru64.ID
	if err := back.Scan(rec.args[0]); err != nil || back != id {
		t.Errorf("Scan(%v) = %s, %v; want %s", rec.args[0], back, err, id)
	}
}

// recorder is a database/sql driver that records the arguments of Exec.
type recorder struct{ args []driver.Value }

func (r *recorder) Connect(context.Context) (driver.Conn, error) { return r, nil }
func (r *recorder) Driver() driver.Driver                        { return nil }
func (r *recorder) Prepare(string) (driver.Stmt, error)          { return r, nil }
func (r *recorder) Close() error                                 { return nil }
func (r *recorder) Begin() (driver.Tx, error)                    { return nil, errors.New("no transactions") }
func (r *recorder) NumInput() int                                { return -1 }
func (r *recorder) Query([]driver.Value) (driver.Rows, error)    { return nil, errors.New("no queries") }
func (r *recorder) Exec(args []driver.Value) (driver.Result, error) {
	r.args = append(r.args, args...)
	return driver.RowsAffected(1), nil
}
