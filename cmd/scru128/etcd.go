//go:build unix || windows

package main

// gen -etcd: a node ID leased from etcd, the flags that say which cluster
// and as whom, and the words for what etcd answers.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fastid/scru128/internal/etcdhttp"
	"github.com/fastid/scru128/internal/nodelease"
	"github.com/fastid/scru128/scru64"
)

// etcdSetting is one of gen's etcd flags: its name, the etcdctl
// environment variable it falls back on, and the field it sets.
type etcdSetting struct {
	flag  string          // without the dash
	env   string          // read when the flag is not given; "" for none
	conn  etcdhttp.Field  // the field of etcdhttp.Config it sets, or 0
	lease nodelease.Field // the field of nodelease.Config it sets, or 0
}

// etcdSettings lists gen's etcd flags, -etcd first. With etcdFlagOf it is
// the one place that knows which flag, or which environment variable,
// sets each field of the two configs, so that an error that names a field
// names what the user typed.
var etcdSettings = []etcdSetting{
	{flag: "etcd", conn: etcdhttp.FieldEndpoints},
	{flag: "etcd-prefix", lease: nodelease.FieldPrefix},
	{flag: "etcd-size", lease: nodelease.FieldNodeIDSize},
	{flag: "etcd-cacert", env: "ETCDCTL_CACERT", conn: etcdhttp.FieldCACert},
	{flag: "etcd-cert", env: "ETCDCTL_CERT", conn: etcdhttp.FieldCert},
	{flag: "etcd-key", env: "ETCDCTL_KEY", conn: etcdhttp.FieldKey},
	{flag: "etcd-user", env: "ETCDCTL_USER", conn: etcdhttp.FieldUser},
}

// passwordEnv are the variables a password is read from, in this order,
// when -etcd-user (or ETCDCTL_USER) gives a user name without one.
var passwordEnv = []string{"SCRU128_ETCD_PASSWORD", "ETCDCTL_PASSWORD"}

// etcdFlagNames returns the names of the etcd flags, -etcd first.
func etcdFlagNames() []string {
	names := make([]string, len(etcdSettings))
	for i, s := range etcdSettings {
		names[i] = s.flag
	}
	return names
}

// etcdFlags are gen's etcd flags.
type etcdFlags struct {
	fs        *flag.FlagSet
	endpoints *string
	prefix    *string
	size      *uint
	// text are the flags with an environment variable to fall back on.
	text map[string]*string
}

func newEtcdFlags(fs *flag.FlagSet) etcdFlags {
	f := etcdFlags{
		fs:        fs,
		endpoints: fs.String("etcd", "", ""),
		prefix:    fs.String("etcd-prefix", nodelease.DefaultPrefix, ""),
		size:      fs.Uint("etcd-size", nodelease.DefaultNodeIDSize, ""),
		text:      map[string]*string{},
	}
	for _, s := range etcdSettings {
		if s.env != "" {
			f.text[s.flag] = fs.String(s.flag, "", "")
		}
	}
	return f
}

// etcdSetup is what gen -etcd leases with: the two configs, and where
// each value of the connection came from.
type etcdSetup struct {
	conn  etcdhttp.Config
	lease nodelease.Config
	from  map[etcdhttp.Field]string // the flag or variable that gave the value
}

// setup reads the flags, and the environment for those not given. Its
// error is a usage error's reason, which never holds a password.
func (f etcdFlags) setup(getenv func(string) string) (*etcdSetup, error) {
	s := &etcdSetup{
		conn:  etcdhttp.Config{Endpoints: strings.Split(*f.endpoints, ",")},
		lease: nodelease.DefaultConfig(),
		from:  map[etcdhttp.Field]string{},
	}
	s.lease.Prefix, s.lease.NodeIDSize = *f.prefix, uint8(*f.size)
	values := map[etcdhttp.Field]string{}
	for _, set := range etcdSettings {
		flagValue, ok := f.text[set.flag]
		if !ok {
			continue
		}
		name, value := "-"+set.flag, *flagValue
		if !wasSet(f.fs, set.flag) && getenv(set.env) != "" {
			name, value = set.env, getenv(set.env)
		}
		if value != "" {
			values[set.conn], s.from[set.conn] = value, name
		}
	}
	s.conn.CACert, s.conn.Cert, s.conn.Key = values[etcdhttp.FieldCACert], values[etcdhttp.FieldCert], values[etcdhttp.FieldKey]
	given := values[etcdhttp.FieldUser]
	if given == "" {
		return s, nil
	}
	// As etcdctl's --user: a name, or a name and a password after the first
	// colon.
	user, password, hasPassword := strings.Cut(given, ":")
	source := s.from[etcdhttp.FieldUser]
	if user == "" {
		return nil, fmt.Errorf("%s: no user name before the colon", source)
	}
	s.conn.User = user
	if hasPassword {
		s.conn.Password, s.from[etcdhttp.FieldPassword] = password, source
		return s, nil
	}
	for _, env := range passwordEnv {
		if password := getenv(env); password != "" {
			s.conn.Password, s.from[etcdhttp.FieldPassword] = password, env
			return s, nil
		}
	}
	return nil, fmt.Errorf("%s %s has no password: give %s %s:PASSWORD, or set %s (gen never prompts)",
		source, strconv.Quote(user), source, user, passwordEnv[0])
}

// etcdFlagOf returns the user's name for field, a nodelease.Field or an
// etcdhttp.Field: the flag that sets it or, for a value that came from the
// environment, the variable. A field no flag sets is -etcd's.
func (s *etcdSetup) etcdFlagOf(field any) string {
	if f, ok := field.(etcdhttp.Field); ok && s.from[f] != "" {
		return s.from[f]
	}
	if field == etcdhttp.FieldPassword {
		field = etcdhttp.FieldUser
	}
	for _, set := range etcdSettings {
		if field == any(set.conn) || field == any(set.lease) {
			return "-" + set.flag
		}
	}
	return "-etcd"
}

// nameFields puts the user's name for their field into the errors in
// err's tree that name one, so that their texts name it.
func (s *etcdSetup) nameFields(err error) {
	switch e := err.(type) {
	case *nodelease.OptionError:
		e.Option = s.etcdFlagOf(e.Field)
	case *etcdhttp.ConfigError:
		e.Name = s.etcdFlagOf(e.Field)
	case *etcdhttp.TLSError:
		e.Name = s.etcdFlagOf(e.Field)
	case interface{ Unwrap() error }:
		s.nameFields(e.Unwrap())
	case interface{ Unwrap() []error }:
		for _, err := range e.Unwrap() {
			s.nameFields(err)
		}
	}
}

// hint returns what gen adds to a failure etcd answered: whose keys a
// permission denied is about, or that etcd wants a user.
func (s *etcdSetup) hint(err error) string {
	var answer *etcdhttp.Error
	switch {
	case !errors.As(err, &answer):
		return ""
	case answer.PermissionDenied() && s.conn.User != "":
		return fmt.Sprintf(" (user %q needs a role that may read and write the keys under %q, the %s)",
			s.conn.User, s.lease.Prefix, "-etcd-prefix")
	case answer.PermissionDenied(), answer.NeedsUser():
		return " (etcd has auth enabled: give -etcd-user)"
	}
	return ""
}

// etcdTimeout bounds leasing a node ID from etcd, and giving it back.
const etcdTimeout = 30 * time.Second

// leasedNode is a node ID leased from etcd with -etcd.
type leasedNode struct {
	node *nodelease.Node
	stop *stopper
	// giveBack starts Node.Close, once: at the end of the run, or as soon
	// as a signal comes, since minting may be waiting for etcd and only
	// closing the node ends that wait.
	giveBack sync.Once
	closed   chan error // Close's result
	finished chan struct{}
}

// acquireNode leases a node ID from etcd for gen -etcd. It returns nil and
// an exit status after reporting an error, or at once on a signal. What
// the flags, the environment and the files they name say is a usage error
// (exit status 2), found before any request; what etcd (or the TLS
// handshake) refuses is a failure (exit status 1), found at the first
// request that meets it.
func acquireNode(e *env, flags etcdFlags, stop *stopper) (node, int) {
	setup, err := flags.setup(e.getenv)
	if err != nil {
		return nil, usageFailure(e, "gen", err.Error())
	}
	store, err := etcdhttp.New(setup.conn)
	if err != nil {
		setup.nameFields(err)
		return nil, usageFailure(e, "gen", err.Error())
	}
	ctx, cancel := context.WithTimeout(context.Background(), etcdTimeout)
	defer cancel()
	type result struct {
		node *nodelease.Node
		err  error
	}
	acquired := make(chan result, 1)
	go func() {
		n, err := nodelease.Acquire(ctx, store, setup.lease)
		acquired <- result{n, err}
	}()
	var r result
	select {
	case r = <-acquired:
	case <-stop.done:
		// Acquire revokes a lease it granted when it fails, with a timeout
		// of its own; gen does not wait for that. A lease left behind
		// expires after its TTL.
		return nil, stop.status()
	}
	if r.err != nil {
		setup.nameFields(r.err)
		if errors.Is(r.err, nodelease.ErrInvalidOption) || errors.Is(r.err, nodelease.ErrRealmMismatch) {
			return nil, usageFailure(e, "gen", r.err.Error())
		}
		return nil, failure(e, fmt.Errorf("leasing a node ID from etcd: %w%s", r.err, setup.hint(r.err)))
	}
	if wait := r.node.ClockWait(); wait > 0 {
		last := r.node.NodeSpec().NodePrev()
		warn(e, fmt.Sprintf("waiting %v for the clock: node ID %d continues after %s (%s), which an earlier holder minted ahead of this clock",
			wait.Round(time.Second), r.node.NodeID(), last, last.Time().UTC().Format(rfc3339Milli)))
	}
	n := &leasedNode{node: r.node, stop: stop, closed: make(chan error, 1), finished: make(chan struct{})}
	go func() {
		select {
		case <-stop.done:
			n.startGiveBack()
		case <-n.finished:
		}
	}()
	return n, exitOK
}

func (n *leasedNode) generate() (scru64.ID, error) {
	id, err := n.node.Generate()
	if err != nil && errors.Is(err, nodelease.ErrClosed) && n.stop.stopped() {
		return id, errInterrupted // closed by the signal
	}
	return id, err
}

// errBackfillLeased is what backfill's function returns: gen's flags do
// not allow -time with -etcd.
var errBackfillLeased = errors.New("-etcd mints at the clock's time")

func (n *leasedNode) backfill(int64) func() (scru64.ID, error) {
	return func() (scru64.ID, error) { return 0, errBackfillLeased }
}

// startGiveBack starts closing the node: storing its last ID in etcd and
// revoking its lease, bounded by etcdTimeout and by the grace after a
// signal.
func (n *leasedNode) startGiveBack() {
	n.giveBack.Do(func() {
		go func() {
			ctx, cancel := n.stop.context(etcdTimeout)
			defer cancel()
			n.closed <- n.node.Close(ctx)
		}()
	})
}

// finish gives the node ID back. A node whose lease was lost during the
// run has already been reported by the minting error.
func (n *leasedNode) finish(e *env, stop *stopper, _ bool) int {
	close(n.finished)
	n.startGiveBack()
	var err error
	select {
	case err = <-n.closed:
	case <-stop.expired:
		err = context.Canceled // Close is stuck past its context: give up
	}
	switch {
	case err == nil, errors.Is(err, nodelease.ErrLeaseLost), errors.Is(err, nodelease.ErrClosed):
		return exitOK
	case stop.stopped():
		warn(e, "interrupted while giving the node ID back to etcd: it is free again once its lease expires, and the next holder still continues after every ID printed")
		return exitFailure
	}
	return failure(e, fmt.Errorf("giving the node ID back to etcd: %w", err))
}
