package pgnode_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fastid/scru128/scru64/pgnode"
)

// The tests run against real PostgreSQL servers, in two ways:
//
//   - Most share one server: the one SCRU128_TEST_POSTGRES_DSN names (the
//     one .ci/run starts), or else one these tests start for themselves.
//     Each test sets up a schema of its own there, dropped when it ends.
//   - Tests that stop, restart, restore, fail over or replace a server
//     start servers of their own (initdb in a temporary directory,
//     listening on a free loopback port, stopped and removed when the test
//     ends, and killed with the test process if it dies).
//
// Starting servers needs PostgreSQL's programs: the directory
// SCRU128_TEST_POSTGRES_BIN names, or the newest /usr/lib/postgresql/*/bin,
// or initdb on the PATH. Run as root, the servers run as the user
// SCRU128_TEST_POSTGRES_OS_USER names (default scru128ci, else nobody), in
// directories under SCRU128_TEST_POSTGRES_TMPDIR (default /tmp). Without
// the programs those tests are skipped, unless
// SCRU128_TEST_POSTGRES_REQUIRED is set: then they fail.
const (
	dsnEnv      = "SCRU128_TEST_POSTGRES_DSN"
	requiredEnv = "SCRU128_TEST_POSTGRES_REQUIRED"
	binEnv      = "SCRU128_TEST_POSTGRES_BIN"
	osUserEnv   = "SCRU128_TEST_POSTGRES_OS_USER"
	tmpDirEnv   = "SCRU128_TEST_POSTGRES_TMPDIR"
)

// skipOrFail skips the test for want of what why names, or fails it if
// the servers are required.
func skipOrFail(t testing.TB, why string) {
	t.Helper()
	if os.Getenv(requiredEnv) != "" {
		t.Fatalf("%s is set, but %s", requiredEnv, why)
	}
	t.Skip(why)
}

// pgBin returns the directory of PostgreSQL's programs.
func pgBin(t testing.TB) string {
	t.Helper()
	if dir := os.Getenv(binEnv); dir != "" {
		return dir
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	best, bestVersion := "", -1
	for _, dir := range dirs {
		v, err := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
		if _, statErr := os.Stat(filepath.Join(dir, "initdb")); err == nil && statErr == nil && v > bestVersion {
			best, bestVersion = dir, v
		}
	}
	if best != "" {
		return best
	}
	if path, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(path)
	}
	skipOrFail(t, "PostgreSQL's programs (initdb, postgres) were not found; set "+binEnv)
	return ""
}

// serverUser is the user the servers run as when the tests run as root
// (PostgreSQL refuses to run as root); nil otherwise.
type serverUser struct {
	name     string
	uid, gid uint32
}

var (
	serverUserOnce sync.Once
	serverUserVal  *serverUser
	serverUserErr  error
)

func runAs(t testing.TB) *serverUser {
	t.Helper()
	serverUserOnce.Do(func() {
		if os.Geteuid() != 0 {
			return
		}
		names := []string{"scru128ci", "nobody"}
		if name := os.Getenv(osUserEnv); name != "" {
			names = []string{name}
		}
		for _, name := range names {
			u, err := user.Lookup(name)
			if err != nil {
				serverUserErr = err
				continue
			}
			uid, _ := strconv.ParseUint(u.Uid, 10, 32)
			gid, _ := strconv.ParseUint(u.Gid, 10, 32)
			serverUserVal, serverUserErr = &serverUser{name: name, uid: uint32(uid), gid: uint32(gid)}, nil
			return
		}
	})
	if serverUserErr != nil {
		skipOrFail(t, "running as root, and no user to run PostgreSQL as: "+serverUserErr.Error())
	}
	return serverUserVal
}

// command returns cmd set to run as the server user, and to be killed with
// sig if this process dies first (see spawn).
func command(t testing.TB, sig syscall.Signal, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.SysProcAttr = procAttr(runAs(t), sig)
	return cmd
}

// spawnRequests carries the commands spawn starts: all from one goroutine
// locked to its thread, which lives as long as the process. Linux sends a
// child its parent-death signal when the thread that started it exits,
// not the process, so the servers are started from a thread that never
// exits before the process does: then a test binary that dies (a panic, a
// timeout) takes its servers with it.
var (
	spawnOnce     sync.Once
	spawnRequests = make(chan spawnRequest)
)

type spawnRequest struct {
	cmd  *exec.Cmd
	done chan error
}

// spawn starts cmd from the spawning thread.
func spawn(cmd *exec.Cmd) error {
	spawnOnce.Do(func() {
		go func() {
			runtime.LockOSThread() // never unlocked: the thread lives until the process ends
			for r := range spawnRequests {
				r.done <- r.cmd.Start()
			}
		}()
	})
	r := spawnRequest{cmd: cmd, done: make(chan error, 1)}
	spawnRequests <- r
	return <-r.done
}

// run runs a PostgreSQL program as the server user and fails the test if
// it fails.
func run(t testing.TB, name string, args ...string) {
	t.Helper()
	cmd := command(t, syscall.SIGKILL, name, args...)
	out, err := runCmd(cmd)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
}

func runCmd(cmd *exec.Cmd) ([]byte, error) {
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := spawn(cmd); err != nil {
		return nil, err
	}
	err := cmd.Wait()
	return []byte(out.String()), err
}

// tempDir makes a directory for a server's files that the server user
// owns, removed when the test ends.
func tempDir(t testing.TB, pattern string) string {
	t.Helper()
	base := os.Getenv(tmpDirEnv)
	if base == "" {
		base = os.TempDir()
		if os.Geteuid() == 0 {
			base = "/tmp" // reachable by the server user, whatever TMPDIR says
		}
	}
	dir, err := os.MkdirTemp(base, pattern)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if u := runAs(t); u != nil {
		if err := os.Chown(dir, int(u.uid), int(u.gid)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// cluster is a PostgreSQL server of a test's own, with its data in a
// temporary directory, listening on a loopback port.
type cluster struct {
	t       testing.TB
	bin     string
	dir     string // the server user's: data/, the socket, server.log
	data    string
	port    int
	options []string // -c settings beyond the defaults
	env     []string // the postmaster's environment beyond this process's

	mu      sync.Mutex
	cmd     *exec.Cmd     // the postmaster, nil while stopped
	exited  chan struct{} // closed when cmd has exited
	stopped bool          // for good: the test has ended
}

// newCluster makes a new cluster (initdb: a system identifier of its own)
// and starts it, with options as extra -c settings; it is stopped and
// removed when the test ends.
func newCluster(t testing.TB, options ...string) *cluster {
	t.Helper()
	return newClusterWithEnv(t, nil, options...)
}

// newClusterWithEnv is newCluster with env added to the server's
// environment.
func newClusterWithEnv(t testing.TB, env []string, options ...string) *cluster {
	t.Helper()
	c := emptyCluster(t, options...)
	c.env = env
	run(t, filepath.Join(c.bin, "initdb"), "-D", c.data, "-U", "postgres", "--auth=trust", "-E", "UTF8",
		"--no-sync", "--no-instructions")
	c.mustStart()
	return c
}

// emptyCluster returns a cluster whose data directory does not exist yet.
func emptyCluster(t testing.TB, options ...string) *cluster {
	t.Helper()
	c := &cluster{t: t, bin: pgBin(t), options: options}
	c.dir = tempDir(t, "pgnode-server-")
	c.data = filepath.Join(c.dir, "data")
	c.port = freePort(t)
	t.Cleanup(func() {
		c.mu.Lock()
		c.stopped = true
		c.mu.Unlock()
		c.stop()
	})
	return c
}

// dsn returns the connection string of the cluster's postgres database.
func (c *cluster) dsn() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.port)
}

// addr returns the cluster's host:port.
func (c *cluster) addr() string { return "127.0.0.1:" + strconv.Itoa(c.port) }

// start starts the server on its data directory and port and waits until
// it takes connections.
func (c *cluster) start() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd != nil || c.stopped {
		return errors.New("the server is running, or the test has ended")
	}
	log, err := os.OpenFile(filepath.Join(c.dir, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	args := []string{"-D", c.data, "-c", "listen_addresses=127.0.0.1", "-c", "port=" + strconv.Itoa(c.port),
		"-c", "unix_socket_directories=" + c.dir, "-c", "fsync=off", "-c", "max_connections=200"}
	for _, o := range c.options {
		args = append(args, "-c", o)
	}
	// SIGQUIT is an immediate shutdown: a test process that dies takes the
	// server down with it, and the server still removes what it shares.
	cmd := command(c.t, syscall.SIGQUIT, filepath.Join(c.bin, "postgres"), args...)
	cmd.Stdout, cmd.Stderr = log, log
	if c.env != nil {
		cmd.Env = append(os.Environ(), c.env...)
	}
	if err := spawn(cmd); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		select {
		case <-exited:
			return fmt.Errorf("the server exited at start:\n%s", c.logTail())
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, err := pgx.Connect(ctx, c.dsn())
		cancel()
		if err == nil {
			conn.Close(context.Background())
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Signal(syscall.SIGQUIT)
			<-exited
			return fmt.Errorf("the server took no connection in 60 s: %v\n%s", err, c.logTail())
		}
	}
	c.cmd, c.exited = cmd, exited
	return nil
}

func (c *cluster) mustStart() {
	c.t.Helper()
	if err := c.start(); err != nil {
		c.t.Fatalf("starting PostgreSQL on port %d: %v", c.port, err)
	}
}

// logTail returns the end of the server's log.
func (c *cluster) logTail() string {
	b, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// stop shuts the server down (fast: sessions are ended, the data is
// written out) and waits for it; stopping a stopped server does nothing.
func (c *cluster) stop() { c.signal(syscall.SIGINT) }

// crash ends the server at once, as a power cut would end it, but with
// its files intact (the tests turn fsync off; the kernel keeps what was
// written).
func (c *cluster) crash() { c.signal(syscall.SIGQUIT) }

func (c *cluster) signal(sig syscall.Signal) {
	c.mu.Lock()
	cmd, exited := c.cmd, c.exited
	c.cmd = nil
	c.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Signal(sig)
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-exited
	}
}

// restart stops the server and starts it again on its data.
func (c *cluster) restart() {
	c.t.Helper()
	c.stop()
	c.mustStart()
}

// backup stops the server, copies its data directory, starts it again and
// returns the copy: a cold backup, as a file system snapshot takes one.
func (c *cluster) backup() string {
	c.t.Helper()
	c.stop()
	copyDir := filepath.Join(tempDir(c.t, "pgnode-backup-"), "data")
	run(c.t, "cp", "-a", c.data, copyDir)
	c.mustStart()
	return copyDir
}

// restore stops the server, puts the copy backup made in place of its data
// directory, and starts it: the server restored from that backup.
func (c *cluster) restore(backup string) {
	c.t.Helper()
	c.stop()
	if err := os.RemoveAll(c.data); err != nil {
		c.t.Fatal(err)
	}
	run(c.t, "cp", "-a", backup, c.data)
	c.mustStart()
}

// replica makes a streaming replica of c (pg_basebackup) and starts it on
// a port of its own; it replicates asynchronously.
func (c *cluster) replica() *cluster {
	c.t.Helper()
	r := emptyCluster(c.t, c.options...)
	run(c.t, filepath.Join(c.bin, "pg_basebackup"), "-D", r.data, "-h", "127.0.0.1", "-p", strconv.Itoa(c.port),
		"-U", "postgres", "-X", "stream", "-R", "--no-sync")
	r.mustStart()
	return r
}

// exec runs SQL on the cluster's postgres database as its superuser.
func (c *cluster) exec(sql string, args ...any) {
	c.t.Helper()
	execOn(c.t, c.dsn(), sql, args...)
}

// execOn runs SQL on a server, as the DSN's user, failing the test on an
// error.
func execOn(t testing.TB, dsn, sql string, args ...any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// The shared server: SCRU128_TEST_POSTGRES_DSN's, or one started for the
// tests of this process and stopped by TestMain.
var (
	sharedOnce    sync.Once
	sharedDSN     string
	sharedErr     string
	sharedCleanup []func()
)

// sharedServer returns the DSN of the shared server.
func sharedServer(t testing.TB) string {
	t.Helper()
	sharedOnce.Do(func() {
		if dsn := os.Getenv(dsnEnv); dsn != "" {
			sharedDSN = dsn
			return
		}
		// A cluster whose cleanups run after every test: made under a
		// recorder of its own, not the asking test.
		rec := &cleanupRecorder{TB: t}
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(recorderStop); !ok {
					panic(r)
				}
			}
			sharedCleanup = rec.cleanups
		}()
		c := newCluster(rec)
		sharedDSN = c.dsn()
	})
	if sharedDSN == "" {
		if sharedErr == "" {
			sharedErr = "the shared PostgreSQL server could not be started"
		}
		skipOrFail(t, sharedErr)
	}
	return sharedDSN
}

// cleanupRecorder is a testing.TB whose cleanups run when TestMain ends,
// and whose Fatal and Skip end the making of the shared server only.
type cleanupRecorder struct {
	testing.TB
	cleanups []func()
}

type recorderStop struct{}

func (r *cleanupRecorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *cleanupRecorder) Helper()          {}
func (r *cleanupRecorder) Fatal(args ...any) {
	sharedErr = fmt.Sprint(args...)
	panic(recorderStop{})
}
func (r *cleanupRecorder) Fatalf(format string, args ...any) {
	sharedErr = fmt.Sprintf(format, args...)
	panic(recorderStop{})
}
func (r *cleanupRecorder) Skip(args ...any) {
	sharedErr = fmt.Sprint(args...)
	panic(recorderStop{})
}

// maxParallel bounds the tests run at once unless -parallel says
// otherwise: each holds a few connections to the shared server, whose
// max_connections may be PostgreSQL's default, 100.
const maxParallel = 4

func TestMain(m *testing.M) {
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit && runtime.GOMAXPROCS(0) > maxParallel {
		flag.Set("test.parallel", strconv.Itoa(maxParallel))
	}
	code := m.Run()
	for i := len(sharedCleanup) - 1; i >= 0; i-- {
		sharedCleanup[i]()
	}
	os.Exit(code)
}

// schemaName returns a schema name made from the test's name, unique.
func schemaName(t testing.TB) string {
	name := strings.ToLower(regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(t.Name(), "_"))
	if len(name) > 40 {
		name = name[len(name)-40:]
	}
	return "t_" + strconv.FormatUint(rand.Uint64()%1e8, 36) + "_" + strings.Trim(name, "_")
}

// newSchema sets up a schema of the test's own on the server at dsn, as
// its user, and drops it when the test ends.
func newSchema(t testing.TB, dsn string) string {
	t.Helper()
	schema := schemaName(t)
	db := newPool(t, dsn, "setup")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := pgnode.Setup(ctx, db, pgnode.WithSchema(schema)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Best effort: a test may have stopped its server for good.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("dropping the test's schema: %v", err)
		}
	})
	return schema
}

// newPool opens a pool to dsn whose connections carry application_name
// name, closed when the test ends.
func newPool(t testing.TB, dsn, name string) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["application_name"] = name
	cfg.MaxConns = 4 // whatever the number of CPUs: see maxParallel
	db, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db
}

// withHost returns dsn with its host and port replaced by addr.
func withHost(t testing.TB, dsn, addr string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = addr
	return u.String()
}

// hostOf returns the host:port of dsn.
func hostOf(t testing.TB, dsn string) string {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
}

func TestServerStarts(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	var version string
	db := newPool(t, c.dsn(), "version")
	if err := db.QueryRow(context.Background(), "SHOW server_version").Scan(&version); err != nil {
		t.Fatal(err)
	}
	t.Logf("PostgreSQL %s on %s, data in %s", version, c.addr(), c.data)
}
