//go:build (unix && !aix) || windows

package etcdcli

// gen -etcd: a node ID leased from etcd with package etcdnode over etcd's
// Go client, set up from the flags that say which cluster and as whom
// (package cli defines them), and the words for what etcd answers.

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/fastid/scru128/cmd/scru128/internal/cli"
	"github.com/fastid/scru128/internal/nodelease"
	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/scru64/etcdnode"
)

// passwordEnv are the variables a password is read from, in this order,
// when -etcd-user (or ETCDCTL_USER) gives a user name without one.
var passwordEnv = []string{"SCRU128_ETCD_PASSWORD", "ETCDCTL_PASSWORD"}

// maxPrefix bounds the length of -etcd-prefix.
const maxPrefix = 1024

// etcdSetup is what gen -etcd leases with, read from the flags and the
// environment and checked.
type etcdSetup struct {
	endpoints []string    // scheme://host:port
	tls       *tls.Config // nil for plain HTTP
	user      string      // the etcd user, or ""
	password  string      // the user's password (never printed)
	certUser  string      // the client certificate's common name, etcd's user when user is ""
	lease     nodelease.Config
	from      map[cli.ConnField]string // the flag or variable that gave each setting
}

// setup reads the flags, and the environment for those not given, and the
// files they name. Its error is a usage error's reason, which never holds
// a password or a URL's credentials.
func setup(f cli.EtcdFlags, getenv func(string) string) (*etcdSetup, error) {
	s := &etcdSetup{lease: nodelease.DefaultConfig(), from: map[cli.ConnField]string{cli.FieldEndpoints: "-etcd"}}
	s.lease.Prefix, s.lease.NodeIDSize, s.lease.TTL = *f.Prefix, uint8(*f.Size), *f.TTL
	if len(s.lease.Prefix) > maxPrefix {
		// The limits on etcd's messages grow with the prefix.
		return nil, fmt.Errorf("-etcd-prefix: %d bytes, more than %d", len(s.lease.Prefix), maxPrefix)
	}
	if err := s.lease.Check(); err != nil {
		var oe *nodelease.OptionError
		if errors.As(err, &oe) {
			return nil, fmt.Errorf("%s: %s", s.flagOf(oe.Field), oe.Reason)
		}
		return nil, err
	}
	values := map[cli.ConnField]string{}
	for _, set := range cli.EtcdSettings {
		flagValue, ok := f.Text[set.Flag]
		if !ok {
			continue
		}
		name, value := "-"+set.Flag, *flagValue
		if !cli.WasSet(f.FlagSet, set.Flag) && getenv(set.Env) != "" {
			name, value = set.Env, getenv(set.Env)
		}
		if value != "" {
			values[set.Conn], s.from[set.Conn] = value, name
		}
	}
	withTLS := values[cli.FieldCACert] != "" || values[cli.FieldCert] != "" || values[cli.FieldKey] != ""
	if err := s.setEndpoints(*f.Endpoints, withTLS); err != nil {
		return nil, err
	}
	if strings.HasPrefix(s.endpoints[0], "https://") {
		if err := s.setTLS(values[cli.FieldCACert], values[cli.FieldCert], values[cli.FieldKey]); err != nil {
			return nil, err
		}
	}
	return s, s.setUser(values[cli.FieldUser], getenv)
}

// setEndpoints checks -etcd: client URLs, http:// or https://, or host:port
// as etcdctl takes them (https if a CA or a certificate is given). A path,
// a query and a fragment are ignored; credentials are refused, without
// showing them: gen takes the user from -etcd-user, and the password from
// the environment, where ps does not show it.
func (s *etcdSetup) setEndpoints(list string, withTLS bool) error {
	scheme := ""
	for _, e := range strings.Split(list, ",") {
		shown := withoutCredentials(e)
		withScheme := e
		if !strings.Contains(e, "://") {
			withScheme = "http://" + e
			if withTLS {
				withScheme = "https://" + e
			}
		}
		if strings.Contains(authorityOf(withScheme), "@") {
			return fmt.Errorf("-etcd %q: credentials in an endpoint are not used: give the user with -etcd-user and the password in $%s", shown, passwordEnv[0])
		}
		u, err := url.Parse(withScheme)
		switch {
		case e == "":
			return errors.New("-etcd: an empty endpoint (want comma-separated client URLs, such as http://127.0.0.1:2379)")
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
			return fmt.Errorf("-etcd %q: not an http:// or https:// URL with a host", shown)
		case u.Scheme == "http" && withTLS:
			return fmt.Errorf("-etcd %q: plain HTTP, but a CA or a client certificate is given (use https://)", shown)
		case scheme != "" && u.Scheme != scheme:
			// etcd's client speaks the first endpoint's scheme to all.
			return fmt.Errorf("-etcd: %s and %s endpoints mixed (give one scheme for all)", scheme+"://", u.Scheme+"://")
		}
		scheme = u.Scheme
		s.endpoints = append(s.endpoints, u.Scheme+"://"+u.Host)
	}
	return nil
}

// authorityOf returns the part of a URL between "://" and the path.
func authorityOf(rawURL string) string {
	_, rest, _ := strings.Cut(rawURL, "://")
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// withoutCredentials returns an endpoint with anything before an @ in its
// authority left out, for messages.
func withoutCredentials(endpoint string) string {
	scheme, rest, ok := strings.Cut(endpoint, "://")
	if !ok {
		scheme, rest = "", endpoint
	}
	authority := authorityOf("x://" + rest)
	if i := strings.LastIndex(authority, "@"); i >= 0 {
		rest = "…" + rest[i:]
	}
	if ok {
		return scheme + "://" + rest
	}
	return rest
}

// setTLS reads the CA and the client certificate, if given.
func (s *etcdSetup) setTLS(caFile, certFile, keyFile string) error {
	switch {
	case certFile != "" && keyFile == "":
		return fmt.Errorf("%s: a client certificate needs its key (%s)", s.flagOf(cli.FieldKey), certFile)
	case keyFile != "" && certFile == "":
		return fmt.Errorf("%s: a client key needs its certificate (%s)", s.flagOf(cli.FieldCert), keyFile)
	}
	s.tls = &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile != "" {
		pem, err := cli.ReadFlagFile(s.flagOf(cli.FieldCACert), caFile, cli.MaxFlagFile)
		if err != nil {
			return err
		}
		s.tls.RootCAs = x509.NewCertPool()
		if !s.tls.RootCAs.AppendCertsFromPEM(pem) {
			return fmt.Errorf("%s %q: holds no PEM certificate", s.flagOf(cli.FieldCACert), caFile)
		}
	}
	if certFile == "" {
		return nil
	}
	certPEM, err := cli.ReadFlagFile(s.flagOf(cli.FieldCert), certFile, cli.MaxFlagFile)
	if err != nil {
		return err
	}
	keyPEM, err := cli.ReadFlagFile(s.flagOf(cli.FieldKey), keyFile, cli.MaxFlagFile)
	if err != nil {
		return err
	}
	// Each file's own fault is put on its own flag; only a pair that does
	// not match is put on both.
	if !holdsPEM(certPEM, func(kind string) bool { return kind == "CERTIFICATE" }) {
		return fmt.Errorf("%s %q: holds no PEM certificate", s.flagOf(cli.FieldCert), certFile)
	}
	if !holdsPEM(keyPEM, func(kind string) bool { return strings.HasSuffix(kind, "PRIVATE KEY") }) {
		return fmt.Errorf("%s %q: holds no PEM private key", s.flagOf(cli.FieldKey), keyFile)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return fmt.Errorf("%s %q and %s %q: are no certificate and its private key: %w",
			s.flagOf(cli.FieldCert), certFile, s.flagOf(cli.FieldKey), keyFile, err)
	}
	s.tls.Certificates = []tls.Certificate{cert}
	// etcd takes this name as the user of a request with no token, as
	// etcdctl users expect.
	s.certUser = cert.Leaf.Subject.CommonName
	return nil
}

// holdsPEM reports whether data holds a PEM block of a kind that is wants.
func holdsPEM(data []byte, is func(kind string) bool) bool {
	for {
		var block *pem.Block
		if block, data = pem.Decode(data); block == nil {
			return false
		}
		if is(block.Type) {
			return true
		}
	}
}

// setUser reads the user and its password, as etcdctl's --user: a name,
// or a name and a password after the first colon; without one, the
// password comes from the environment.
func (s *etcdSetup) setUser(given string, getenv func(string) string) error {
	if given == "" {
		return nil
	}
	user, password, hasPassword := strings.Cut(given, ":")
	source := s.from[cli.FieldUser]
	switch {
	case user == "":
		return fmt.Errorf("%s: no user name before the colon", source)
	case hasPassword && password == "":
		return fmt.Errorf("%s %q: an empty password after the colon", source, user)
	case !hasPassword:
		for _, env := range passwordEnv {
			if password = getenv(env); password != "" {
				break
			}
		}
	}
	if password == "" {
		return fmt.Errorf("%s %s has no password: set %s (or give %s %s:PASSWORD, which ps shows to every user; gen never prompts)",
			source, strconv.Quote(user), passwordEnv[0], source, user)
	}
	s.user, s.password = user, password
	return nil
}

// flagOf returns the user's name for a setting, a connField or a
// nodelease.Field: the flag that gives it or, for a value that came from
// the environment, the variable.
func (s *etcdSetup) flagOf(field any) string {
	if f, ok := field.(cli.ConnField); ok && s.from[f] != "" {
		return s.from[f]
	}
	for _, set := range cli.EtcdSettings {
		if field == any(set.Conn) || field == any(set.Lease) {
			return "-" + set.Flag
		}
	}
	return "-etcd"
}

// reason words an error of leasing or minting through etcd: etcd's
// answers with their gRPC code, the protocol's errors bare of etcdnode's
// prefix, a TLS failure naming its flag, and the errors these are wrapped
// in with their own words, on one line.
func (s *etcdSetup) reason(err error) string {
	switch e := err.(type) {
	case nil:
		return "no error"
	case *tlsError:
		return e.text(s.flagOf(e.field))
	case *nodelease.PrefixedError:
		return s.reason(e.Err)
	case rpctypes.EtcdError:
		return s.serverText(e.Error()) + " (gRPC code " + e.Code().String() + ")"
	case interface{ GRPCStatus() *status.Status }:
		st := e.GRPCStatus()
		if st.Code() == codes.DeadlineExceeded {
			return "etcd did not answer in time"
		}
		return s.serverText(st.Message()) + " (gRPC code " + st.Code().String() + ")"
	}
	if err == context.DeadlineExceeded {
		return "etcd did not answer in time"
	}
	// A wrapper's own words stay, with what it wraps worded as above, in
	// the order its text holds them.
	var inner []error
	switch e := err.(type) {
	case interface{ Unwrap() []error }:
		inner = e.Unwrap()
	case interface{ Unwrap() error }:
		inner = []error{e.Unwrap()}
	}
	text, rest := "", err.Error()
	for _, part := range inner {
		if part == nil {
			continue
		}
		words := part.Error()
		if !strings.Contains(rest, words) {
			// The protocol's errors show what they wrap with its
			// control characters escaped.
			words = cli.Printable(words)
		}
		if strings.Contains(rest, words) {
			before, after, _ := strings.Cut(rest, words)
			text += before + s.reason(part)
			rest = after
		}
	}
	return strings.ReplaceAll(text+rest, "\n", "; ")
}

// serverText returns text from etcd (or whoever answers in its place)
// without the user's password, which a hostile or broken server may echo.
// (Control characters are escaped where every message is printed.)
func (s *etcdSetup) serverText(text string) string {
	if s.password != "" {
		text = strings.ReplaceAll(text, s.password, "[password]")
	}
	return text
}

// hint returns what gen adds to a failure etcd answered: whose keys a
// permission denied is about, or that etcd wants a user.
func (s *etcdSetup) hint(err error) string {
	keys := fmt.Sprintf("needs a role that may read and write the keys under %q, the -etcd-prefix", s.lease.Prefix)
	switch {
	case errors.Is(err, rpctypes.ErrPermissionDenied) && s.user != "":
		return fmt.Sprintf(" (user %q %s)", s.user, keys)
	case errors.Is(err, rpctypes.ErrPermissionDenied) && s.certUser != "":
		return fmt.Sprintf(" (user %q, the client certificate's common name, %s)", s.certUser, keys)
	case errors.Is(err, rpctypes.ErrPermissionDenied), errors.Is(err, rpctypes.ErrUserEmpty):
		return " (etcd has auth enabled: give -etcd-user, or a client certificate named after an etcd user)"
	case errors.Is(err, rpctypes.ErrNoSpace):
		return "; etcd has used up its space quota and raised its NOSPACE alarm, so it refuses writes until space is freed" +
			" (delete keys, then etcdctl compact and etcdctl defrag) and the alarm disarmed (etcdctl alarm disarm)"
	}
	return ""
}

// dataError returns what gen says of an error that is etcd's data, or an
// answer in etcd's name, not the flags, being wrong, or "" for another
// error. A realm of another node ID size is the flags' fault (-etcd-size),
// and so a usage error, found separately.
func (s *etcdSetup) dataError(err error) string {
	var (
		realm  *nodelease.RealmError
		record *nodelease.RecordError
		answer *nodelease.DataError
	)
	switch {
	case errors.As(err, &answer) && answer.Key == "":
		// Not data etcd holds, but an answer as a whole (a grant's TTL
		// or lease ID) that no etcd gives.
		return "an answer no etcd gives (from a broken proxy in front of it, or a man in the middle?): " + answer.Reason
	case errors.As(err, &realm) && !isNodeIDSize(realm.Found):
		return fmt.Sprintf("the realm key %q holds %q, not a node ID size: no scru128 or etcdnode wrote it (is -etcd-prefix %q the realm's?)",
			realm.Key, realm.Found, s.lease.Prefix)
	case errors.As(err, &record):
		why := "it is an ID of another node ID"
		if record.Err != nil {
			why = cli.Reason(record.Err)
		}
		return fmt.Sprintf("the continuity record %q holds %q, not an ID of node ID %d/%d (%s): no scru128 or etcdnode wrote it",
			record.Key, record.Value, record.NodeID, record.Size, why)
	}
	return ""
}

// isNodeIDSize reports whether a realm key's value is a node ID size as the
// protocol writes it.
func isNodeIDSize(value string) bool {
	n, err := strconv.Atoi(value)
	return err == nil && n >= 1 && n <= 23 && strconv.Itoa(n) == value
}

// etcdTimeout bounds leasing a node ID from etcd, and giving it back.
const etcdTimeout = 30 * time.Second

// failedGiveBack bounds giving the node ID back after minting failed (a
// lost lease, a stall that outlasted stallLimit): etcd has not answered
// for a while then, the lease is lost or expires within its TTL anyway,
// and a run that failed should end within a few seconds, not wait another
// etcdTimeout.
const failedGiveBack = 3 * time.Second

// giveBackNotice is how long giving the node ID back may take before gen
// says what it is waiting for.
const giveBackNotice = 500 * time.Millisecond

// stallLimit bounds gen's wait for etcd to take the node's writes again,
// once minting has stopped at the bound the node last wrote: as long as
// it waits to lease a node ID.
const stallLimit = etcdTimeout

// leasedNode is a node ID leased from etcd with -etcd.
type leasedNode struct {
	node   *etcdnode.Node
	client interface{ Close() error }
	setup  *etcdSetup
	stop   *cli.Stopper
	e      *cli.Env
	// stalledAt is when minting stopped because etcd refuses the node's
	// writes, and gen said so on stderr; zero while it mints. Minting's
	// one goroutine reads and writes it.
	stalledAt time.Time
	// failed is set when minting ended with an error (a lost lease, a stall
	// that outlasted stallLimit): giving the node ID back is then bounded
	// by failedGiveBack.
	failed atomic.Bool

	mu         sync.Mutex
	givingBack bool // Close has started
	// giveBackTimeout bounds Close, once it has started.
	giveBackTimeout time.Duration
	abandoned       bool  // gen is exiting without giving the node ID back
	reported        bool  // the outcome was reported (by finish or abandon)
	closeErr        error // Close's result, once closed is closed
	closed          chan struct{}
	finished        chan struct{} // closed when the run calls finish
}

// acquireNode leases a node ID from etcd for gen -etcd. It returns nil and
// an exit status after reporting an error, or at once on a signal. What
// the flags, the environment and the files they name say is a usage error
// (exit status 2), found before any request; what etcd (or the TLS
// handshake) refuses, and data in etcd that no node wrote, is a failure
// (exit status 1), found at the first request that meets it.
func acquireNode(e *cli.Env, flags cli.EtcdFlags, stop *cli.Stopper) (cli.Node, int) {
	setup, err := setup(flags, e.Getenv)
	if err != nil {
		return nil, cli.UsageFailure(e, "gen", err.Error())
	}
	type result struct {
		node   *etcdnode.Node
		client interface{ Close() error }
		reach  *reach
		err    error
	}
	// base ends every request of the client, and the lease, as soon as no
	// endpoint can be used.
	base, abort := context.WithCancel(context.Background())
	ctx, cancel := context.WithTimeout(base, etcdTimeout)
	defer cancel()
	acquired := make(chan result, 1)
	go func() {
		r := newReach(setup.endpoints, setup.tls)
		go func() {
			select {
			case <-r.failed:
				abort()
			case <-ctx.Done():
			}
		}()
		c, err := setup.newClient(base, r)
		if err != nil {
			r.end()
			acquired <- result{reach: r, err: err}
			return
		}
		n, err := etcdnode.Acquire(ctx, c, etcdnode.WithPrefix(setup.lease.Prefix),
			etcdnode.WithNodeIDSize(setup.lease.NodeIDSize), etcdnode.WithTTL(setup.lease.TTL))
		r.end()
		if err != nil {
			c.Close()
			acquired <- result{reach: r, err: err, client: c}
			return
		}
		acquired <- result{n, c, r, nil}
	}()
	var res result
	select {
	case res = <-acquired:
	case <-stop.Done():
		// Acquire revokes a lease it granted when it fails, with a timeout
		// of its own; gen does not wait for that. A lease left behind
		// expires after its TTL.
		return nil, stop.Status()
	}
	if err := res.err; err != nil {
		if base.Err() != nil {
			err = res.reach.errors(setup.endpoints) // why no endpoint could be used
		} else if failed := res.reach.errors(setup.endpoints); failed != nil && errors.Is(err, context.DeadlineExceeded) {
			// Some endpoints failed, and the others did not answer.
			err = &slowError{err: err, failed: failed}
		} else if setup.user != "" && res.client == nil {
			// etcd's client authenticates before it returns.
			err = &authError{user: setup.user, err: err}
		}
		return nil, setup.leaseFailure(e, err)
	}
	n := &leasedNode{node: res.node, client: res.client, setup: setup, stop: stop, e: e, closed: make(chan struct{}), finished: make(chan struct{})}
	// The wait is the tool's own count (nodelease's ClockWait overflows
	// for a record centuries ahead); past maxClockWait, gen gives the node
	// ID back and fails.
	if status := cli.ClockNotice(e, n.node.NodeSpec(), false); status != cli.ExitOK {
		stop.SetAbandon(func() int { return n.abandon(e) })
		n.Finish(e, stop, false)
		return nil, status
	}
	stop.SetAbandon(func() int { return n.abandon(e) })
	go n.watchSignal()
	return n, cli.ExitOK
}

// leaseFailure reports an error of leasing a node ID and returns the exit
// status: 2 for a realm of another node ID size (-etcd-size is wrong), 1
// for the rest.
func (s *etcdSetup) leaseFailure(e *cli.Env, err error) int {
	var realm *nodelease.RealmError
	if errors.As(err, &realm) && isNodeIDSize(realm.Found) {
		return cli.UsageFailure(e, "gen", fmt.Sprintf("-etcd-size %d: the realm under %q has node ID size %s (%q holds it), and every node under one prefix uses the same size: give -etcd-size %s, or another -etcd-prefix",
			realm.Want, s.lease.Prefix, realm.Found, realm.Key, realm.Found))
	}
	if text := s.dataError(err); text != "" {
		return cli.Failure(e, fmt.Errorf("leasing a node ID from etcd: %s", text))
	}
	return cli.Failure(e, fmt.Errorf("leasing a node ID from etcd: %s%s", s.reason(err), s.hint(err)))
}

// slowError is a request that no endpoint answered in time while others
// failed.
type slowError struct {
	err, failed error
}

func (e *slowError) Error() string   { return e.err.Error() + " (and " + e.failed.Error() + ")" }
func (e *slowError) Unwrap() []error { return []error{e.err, e.failed} }

// authError is a failure to authenticate as a user.
type authError struct {
	user string
	err  error
}

func (e *authError) Error() string {
	return "authenticating as user " + strconv.Quote(e.user) + ": " + e.err.Error()
}
func (e *authError) Unwrap() error { return e.err }

func (n *leasedNode) Generate() (scru64.ID, error) {
	id, err := n.node.Generate()
	switch {
	case err == nil:
		if !n.stalledAt.IsZero() {
			cli.Warn(n.e, fmt.Sprintf("etcd took the node's writes again after %v: minting resumed",
				time.Since(n.stalledAt).Round(100*time.Millisecond)))
			n.stalledAt = time.Time{}
		}
		return id, nil
	case errors.Is(err, etcdnode.ErrClosed) && n.stop.Stopped():
		return id, cli.ErrInterrupted // closed by the signal
	case errors.Is(err, etcdnode.ErrStalled):
		// etcd refuses the node's writes while its lease holds: say so
		// once, and wait as for a clock behind (gen has flushed its
		// output, and tries again) until a write applies, the lease is
		// lost, or stallLimit has passed. The node's own account of its
		// writes, if it has one, names etcd's last answer.
		if stall := n.node.Stalled(); stall != nil {
			err = stall
		}
		switch {
		case n.stalledAt.IsZero():
			n.stalledAt = time.Now()
			cli.Warn(n.e, fmt.Sprintf("waiting up to %v for etcd to take the node's writes again: %s%s",
				stallLimit, n.setup.reason(err), n.setup.hint(err)))
		case time.Since(n.stalledAt) >= stallLimit:
			n.failed.Store(true)
			return 0, &nodeError{text: fmt.Sprintf("gave up after waiting %v for etcd to take the node's writes: %s%s",
				stallLimit, n.setup.reason(err), n.setup.hint(err)), err: err}
		}
		return 0, stallWait{err}
	case errors.Is(err, scru64.ErrClockRollback):
		return id, err // gen waits for the clock
	}
	n.failed.Store(true)
	return id, &nodeError{text: n.setup.reason(err), err: err}
}

// stallWait is a stall of the node, which gen waits out as it waits for a
// clock behind: it matches scru64.ErrClockRollback.
type stallWait struct{ error }

func (stallWait) Is(target error) bool { return target == scru64.ErrClockRollback }

// nodeError is an error that ends minting under a leased node ID (a lost
// lease, a stall that outlasted stallLimit), in gen's words: etcd's
// answers with their gRPC code, without etcdnode's prefix.
type nodeError struct {
	text string
	err  error
}

func (e *nodeError) Error() string { return e.text }
func (e *nodeError) Unwrap() error { return e.err }

// errBackfillLeased is what backfill's function returns: gen's flags do
// not allow -time with -etcd.
var errBackfillLeased = errors.New("-etcd mints at the clock's time")

func (n *leasedNode) Backfill(int64) func() (scru64.ID, error) {
	return func() (scru64.ID, error) { return 0, errBackfillLeased }
}

// idleAfterSignal is how long after a signal the run may be neither
// writing nor finished before gen takes it to be waiting for etcd to raise
// its bound, inside Generate: only closing the node ends that wait. A run
// that writes is held up by its reader, and gives the node ID back itself
// once the lines it minted are written.
const idleAfterSignal = 100 * time.Millisecond

// watchSignal closes the node after a signal if the run is waiting for
// etcd, and does nothing otherwise: the run stops minting, writes what it
// minted and gives the node ID back in finish, so that the record holds
// the last ID printed.
func (n *leasedNode) watchSignal() {
	select {
	case <-n.stop.Done():
	case <-n.finished:
		return
	}
	signalled := time.Now()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-n.finished:
			return
		case <-tick.C:
		}
		if n.stop.Writing() {
			signalled = time.Now()
		} else if time.Since(signalled) >= idleAfterSignal {
			n.startGiveBack()
			return
		}
	}
}

// startGiveBack starts closing the node, once: storing its last ID in etcd
// and revoking its lease, bounded by etcdTimeout and, after a signal, by
// etcdGrace. It does nothing once gen is abandoning the node.
func (n *leasedNode) startGiveBack() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.givingBack || n.abandoned {
		return
	}
	n.givingBack = true
	timeout := etcdTimeout
	if n.failed.Load() {
		timeout = failedGiveBack
	}
	n.giveBackTimeout = timeout
	go func() {
		ctx, cancel := n.stop.Context(timeout)
		defer cancel()
		n.closeErr = n.node.Close(ctx)
		n.client.Close()
		close(n.closed)
	}()
}

// Finish gives the node ID back, after the last line was written. A node
// whose lease was lost during the run has already been reported by the
// minting error.
//
// When etcd has not answered within giveBackNotice, it says what it waits
// for and for how long at most, so that a run that ends does not fall
// silent: etcdTimeout after a clean end, failedGiveBack after a failure.
// A signal cuts either short (see cli.Stopper.Context).
func (n *leasedNode) Finish(e *cli.Env, stop *cli.Stopper, _ bool) int {
	close(n.finished)
	n.startGiveBack()
	notice := time.NewTimer(giveBackNotice)
	defer notice.Stop()
	select {
	case <-n.closed:
	case <-notice.C:
		n.mu.Lock()
		timeout, quiet := n.giveBackTimeout, n.abandoned || n.reported
		n.mu.Unlock()
		if !quiet && !stop.Stopped() {
			cli.Warn(e, fmt.Sprintf("giving the node ID back to etcd, which has not answered yet: waiting up to %v more (a lease not revoked expires within %v, and the record covers every ID printed)",
				(timeout-giveBackNotice).Round(100*time.Millisecond), n.setup.lease.TTL))
		}
		<-n.closed
	}
	return n.report(e)
}

// report says what giving the node ID back came to, unless it was given
// back or its lease had been lost (which minting reported), and returns
// the exit status. Of finish and abandon, the first to call it reports.
func (n *leasedNode) report(e *cli.Env) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.reported {
		return cli.ExitFailure
	}
	n.reported = true
	switch err := n.closeErr; {
	case err == nil, errors.Is(err, etcdnode.ErrLeaseLost), errors.Is(err, etcdnode.ErrClosed):
		return cli.ExitOK
	case !nodelease.NotRevoked(err):
		// etcd answered the revocation: the node ID is free. Only the
		// record's last write failed (etcd out of space, say), which
		// leaves the high-water mark there, past every ID printed.
		cli.Warn(e, fmt.Sprintf("the node ID was given back to etcd, but its record was not set to the last ID printed (%s): it keeps the high-water mark the run wrote before, ahead of every ID printed, and the next holder continues after that",
			n.setup.reason(err)))
		return cli.ExitOK
	case n.stop.Stopped():
		cli.Warn(e, fmt.Sprintf("interrupted while giving the node ID back to etcd (%s): it may stay held until its lease expires, within %v, and the next holder still continues after every ID printed",
			n.setup.reason(err), n.setup.lease.TTL))
		return cli.ExitFailure
	default:
		return cli.Failure(e, fmt.Errorf("giving the node ID back to etcd: %s", n.setup.reason(err)))
	}
}

// abandon is what gen does when it must exit, hardStop after a signal,
// before the run has ended: when the node ID is not being given back (the
// run is still writing to a reader that does not keep up), it says so, and
// it is not; when it is, it reports how that went.
func (n *leasedNode) abandon(e *cli.Env) int {
	n.mu.Lock()
	if !n.givingBack {
		n.abandoned, n.reported = true, true
		n.mu.Unlock()
		cli.Warn(e, fmt.Sprintf("interrupted before the node ID was given back to etcd, while the output was still being written: it stays held until its lease expires, within %v, and the next holder continues after every ID printed",
			n.setup.lease.TTL))
		return n.stop.Status()
	}
	n.mu.Unlock()
	select {
	case <-n.closed:
		n.report(e)
	case <-time.After(50 * time.Millisecond):
		n.mu.Lock()
		defer n.mu.Unlock()
		if !n.reported {
			n.reported = true
			cli.Warn(e, fmt.Sprintf("interrupted while giving the node ID back to etcd, before etcd answered: it may stay held until its lease expires, within %v, and the next holder still continues after every ID printed",
				n.setup.lease.TTL))
		}
	}
	return n.stop.Status()
}
