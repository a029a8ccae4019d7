package etcdnode_test

import (
	"context"
	"math"
	"strings"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/scru64/etcdnode"
)

// The users of the auth tests, all with the password userPassword except
// root: minter may read and write the keys under /auth/, outsider only
// those under /elsewhere/, and halfway may take a node ID under /half/ but
// only read its continuity record, so that it fails after it was granted a
// lease and took a node ID.
const (
	rootPassword = "root-password-1"
	userPassword = "user-password-2"
)

// startAuthServer starts etcd with auth enabled and the users above, and
// returns it and a root client. Simple tokens live one second, so that a
// run of a few seconds sees its token expire between requests.
func startAuthServer(t *testing.T) (*server, *clientv3.Client) {
	t.Helper()
	return startAuthServerWith(t, 1)
}

// startAuthServerWith is startAuthServer with simple tokens that expire
// tokenTTL seconds after their last use (etcd's default is 300).
func startAuthServerWith(t *testing.T, tokenTTL uint) (*server, *clientv3.Client) {
	t.Helper()
	srv := startServerWith(t, "http", func(cfg *embed.Config) {
		cfg.AuthTokenTTL = tokenTTL
		// The cheapest password hashing etcd allows: each authentication
		// hashes the password, and a run authenticates often here.
		cfg.BcryptCost = 4
	})
	setup := newClient(t, srv.endpoint)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(setup.UserAdd(ctx, "root", rootPassword))
	must(setup.UserGrantRole(ctx, "root", "root"))
	grant := func(role, key, end string, perm clientv3.PermissionType) {
		t.Helper()
		must(setup.RoleAdd(ctx, role))
		must(setup.RoleGrantPermission(ctx, role, key, end, perm))
	}
	grant("minter", "/auth/", clientv3.GetPrefixRangeEnd("/auth/"), clientv3.PermissionType(clientv3.PermReadWrite))
	grant("outsider", "/elsewhere/", clientv3.GetPrefixRangeEnd("/elsewhere/"), clientv3.PermissionType(clientv3.PermReadWrite))
	grant("halfway", "/half/size", "", clientv3.PermissionType(clientv3.PermReadWrite))
	must(setup.RoleGrantPermission(ctx, "halfway", "/half/node/", clientv3.GetPrefixRangeEnd("/half/node/"), clientv3.PermissionType(clientv3.PermReadWrite)))
	must(setup.RoleGrantPermission(ctx, "halfway", "/half/last/", clientv3.GetPrefixRangeEnd("/half/last/"), clientv3.PermissionType(clientv3.PermRead)))
	for _, user := range []string{"minter", "outsider", "halfway"} {
		must(setup.UserAdd(ctx, user, userPassword))
		must(setup.UserGrantRole(ctx, user, user))
	}
	must(setup.AuthEnable(ctx))

	root, err := clientv3.New(clientv3.Config{
		Endpoints: []string{srv.endpoint}, DialTimeout: 5 * time.Second, Logger: zap.NewNop(),
		Username: "root", Password: rootPassword,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return srv, root
}

// TestCLIWithAuth runs gen -etcd against etcd with auth enabled: a user
// whose role covers the prefix mints, with the password from
// SCRU128_ETCD_PASSWORD, -etcd-user or ETCDCTL_USER; a wrong password, no
// user, a user without access to the prefix and one that may take a node
// ID but not write its record each fail at once with status 1 and a clear
// message, never printing the password, and leave no holder key and no
// lease behind.
func TestCLIWithAuth(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command-line tool")
	}
	bin := buildCLI(t)
	srv, root := startAuthServer(t)
	gen := func(prefix string, args ...string) []string {
		return append([]string{"gen", "-format", "scru64", "-etcd", srv.endpoint, "-etcd-prefix", prefix, "-etcd-size", "4"}, args...)
	}

	var last scru64.ID
	for _, r := range []cliRun{
		runCLI(t, bin, []string{"SCRU128_ETCD_PASSWORD=" + userPassword}, gen("/auth/", "-n", "1000", "-etcd-user", "minter")...),
		runCLI(t, bin, nil, gen("/auth/", "-n", "1000", "-etcd-user", "minter:"+userPassword)...),
		runCLI(t, bin, []string{"ETCDCTL_USER=minter", "ETCDCTL_PASSWORD=" + userPassword}, gen("/auth/", "-n", "1000")...),
	} {
		ids := r.ids(t)
		if r.status != 0 || r.stderr != "" || len(ids) != 1000 {
			t.Fatalf("status %d, stderr %q, %d IDs; want 1000 IDs", r.status, r.stderr, len(ids))
		}
		if ids[0] <= last {
			t.Fatalf("a run starts at %s, not after the last ID of the one before, %s", ids[0], last)
		}
		last = ids[len(ids)-1]
	}

	const wrong = "not-the-password-3"
	r := runCLI(t, bin, []string{"SCRU128_ETCD_PASSWORD=" + wrong}, gen("/auth/", "-etcd-user", "minter")...)
	checkFailure(t, "a wrong password", r, 1, `authenticating as user "minter"`, "authentication failed")
	r2 := runCLI(t, bin, nil, gen("/auth/", "-etcd-user", "minter:"+wrong)...)
	checkFailure(t, "a wrong password in -etcd-user", r2, 1, `authenticating as user "minter"`)
	if strings.Contains(r.stderr+r2.stderr, wrong) {
		t.Errorf("the password is printed: %q %q", r.stderr, r2.stderr)
	}
	checkFailure(t, "no user", runCLI(t, bin, nil, gen("/auth/")...), 1, "give -etcd-user")
	checkFailure(t, "a user without access to the prefix",
		runCLI(t, bin, []string{"ETCDCTL_USER=outsider:" + userPassword}, gen("/auth/")...),
		1, "permission denied", `user "outsider"`, `"/auth/"`, "-etcd-prefix")
	checkNothingLeft(t, root, "/auth/node/")
	checkFailure(t, "a user who may not write the record",
		runCLI(t, bin, []string{"SCRU128_ETCD_PASSWORD=" + userPassword}, gen("/half/", "-etcd-user", "halfway")...),
		1, "permission denied", `"/half/last/0000000"`, `user "halfway"`)
	checkNothingLeft(t, root, "/half/node/")
	checkNothingLeft(t, root, "/half/last/")
}

// TestCLIWithAuthOutlivesItsToken: etcd drops a simple token that goes
// unused for its TTL (a second here; five minutes by default) and every
// token when it restarts. A gen -etcd -stream run renews its token and
// goes on minting through both, for longer than its lease's TTL, and ends
// cleanly on SIGINT.
func TestCLIWithAuthOutlivesItsToken(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command-line tool")
	}
	bin := buildCLI(t)
	srv, root := startAuthServer(t)
	g := startStreamWith(t, bin, []string{"SCRU128_ETCD_PASSWORD=" + userPassword},
		"-etcd", srv.endpoint, "-etcd-prefix", "/auth/", "-etcd-user", "minter")
	// etcd restarts, and every token of the run expires a second after
	// its last use. If the run could not authenticate again, its lease
	// would be lost within the TTL (10 s) of the last renewal, and its
	// bound in etcd would stop rising, so that minting stalls.
	time.Sleep(time.Second)
	srv.restart("")
	restarted := time.Now()
	for time.Since(restarted) < 11*time.Second {
		before := len(g.stdout.String())
		time.Sleep(time.Second)
		if len(g.stdout.String()) == before || g.stderr.String() != "" {
			t.Fatalf("%v after the restart, gen printed nothing for a second; stderr %q",
				time.Since(restarted).Round(time.Second), g.stderr.String())
		}
	}
	g.interrupt(t, syscall.SIGINT)
	if g.stderr.String() != "" {
		t.Errorf("stderr %q, want nothing", g.stderr.String())
	}
	g.checkIDs(t)
	checkNothingLeft(t, root, "/auth/node/")
}

// TestKeepAlivesAuthenticateOnce: a node whose client has a user and
// password keeps its lease alive on one stream, which authenticates once,
// not once per keep-alive: clientv3 authenticates every stream it opens,
// and its KeepAliveOnce opens one each time, which cost etcd an
// Authenticate (a password hash, a raft entry, a token kept for minutes)
// for every keep-alive, both for library users and for gen -etcd-user.
func TestKeepAlivesAuthenticateOnce(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the command-line tool")
	}
	const (
		authenticate = "/etcdserverpb.Auth/Authenticate"
		keepAlive    = "/etcdserverpb.Lease/LeaseKeepAlive"
		ttl          = 3 * time.Second // a keep-alive about every second
		runFor       = 8 * time.Second
	)
	srv, _ := startAuthServerWith(t, 300)
	check := func(t *testing.T, px *proxy, renewals *rule) {
		t.Helper()
		renewals.mu.Lock()
		sent := renewals.seen
		renewals.mu.Unlock()
		auths := px.openedCalls(authenticate)
		t.Logf("%d keep-alives on %d streams, %d authentications", sent, px.openedCalls(keepAlive), auths)
		if sent < 5 {
			t.Fatalf("%d keep-alives in %v at a TTL of %v: the test did not renew enough to tell", sent, runFor, ttl)
		}
		if auths > 2 {
			t.Errorf("%d authentications for %d keep-alives: want one, and at most one more", auths, sent)
		}
	}
	counting := func(px *proxy) *rule {
		return px.addRule(&rule{match: func(path string, _ []byte) bool { return path == keepAlive }, action: hold, skip: math.MaxInt})
	}

	t.Run("library", func(t *testing.T) {
		t.Parallel()
		px, viaProxy := startProxy(t, srv.endpoint)
		renewals := counting(px)
		c, err := clientv3.New(clientv3.Config{
			Endpoints: []string{viaProxy}, DialTimeout: 5 * time.Second, Logger: zap.NewNop(),
			Username: "minter", Password: userPassword,
		})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		ctx := context.Background()
		n, err := etcdnode.Acquire(ctx, c, etcdnode.WithPrefix("/auth/library/"), etcdnode.WithTTL(ttl))
		if err != nil {
			t.Fatal(err)
		}
		for end := time.Now().Add(runFor); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			if _, err := n.Generate(); err != nil {
				t.Fatal(err)
			}
		}
		if err := n.Close(ctx); err != nil {
			t.Fatal(err)
		}
		check(t, px, renewals)
	})
	t.Run("gen -etcd-user", func(t *testing.T) {
		t.Parallel()
		bin := buildCLI(t)
		px, viaProxy := startProxy(t, srv.endpoint)
		renewals := counting(px)
		g := startStreamWith(t, bin, []string{"SCRU128_ETCD_PASSWORD=" + userPassword},
			"-etcd", viaProxy, "-etcd-prefix", "/auth/gen/", "-etcd-user", "minter", "-etcd-ttl", "3s")
		time.Sleep(runFor)
		g.interrupt(t, syscall.SIGINT)
		if g.stderr.String() != "" {
			t.Errorf("stderr %q, want nothing", g.stderr.String())
		}
		g.checkIDs(t)
		check(t, px, renewals)
	})
}
