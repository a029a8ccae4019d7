package pgnode_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// proxy sits on a loopback port between clients and a PostgreSQL server
// and injects faults into what passes, as a network, a load balancer or a
// middlebox would. It understands just enough of PostgreSQL's wire
// protocol (version 3) to act on whole requests: the startup packet, then
// messages framed as a type byte and a length, a request being the
// messages up to a Sync (the extended protocol, which pgx uses) or a
// simple Query.
//
// The faults:
//   - cut: drop every byte both ways while connections stay open, so
//     requests hang rather than fail (a partition);
//   - pause: hold every byte both ways until resumed, then deliver it all
//     (a stalled link);
//   - delay: hold each request for a while before passing it on;
//   - retarget: send new connections to another server (a DNS name or a
//     virtual IP moved to a replica, or to another cluster);
//   - hold: keep a request that matches a rule from the server while its
//     client waits and gives up, and deliver it later on a connection of
//     its own (a request stuck in a middlebox);
//   - lose the answer: pass a matching request on, and when the server
//     has answered it (up to its ReadyForQuery, the commit done), drop the
//     answer and cut the connection;
//   - duplicate: pass a matching request on and deliver a copy later on a
//     connection of its own (a retrying middlebox);
//   - answer an error: keep a matching request from the server and answer
//     it with an error of the proxy's making, as a broken pooler or
//     gateway would;
//   - forge: keep a matching request from the server and answer it with
//     rows of the test's making, as a man in the middle would;
//   - slow: hold a matching request for a while before passing it on,
//     while others go through (a slow path for one kind of statement).
//
// A request delivered on a connection of its own is sent after a replay
// of its client's startup packet; the tests' servers trust loopback
// connections, so no password is needed. The proxy answers "no" to a
// request for TLS, so that the rest of the conversation is plain.
type proxy struct {
	listener net.Listener
	addr     string // the proxy's own host:port
	cut      atomic.Bool
	delay    atomic.Int64 // ns before each request is passed on

	mu      sync.Mutex
	target  string
	paused  chan struct{} // closed when not paused; nil means never paused
	rules   []*rule
	open    []net.Conn
	stopped bool
	wg      sync.WaitGroup
	late    sync.WaitGroup // deliveries in flight
}

// action is what a rule does to the requests it matches.
type action int

const (
	hold        action = iota // keep it from the server until deliverHeld
	loseAnswer                // pass it on; drop the answer and cut the connection
	duplicate                 // pass it on, and deliver a copy after the rule's delay
	answerError               // keep it from the server; answer with the rule's error
	forgeAnswer               // keep it from the server; answer with the rule's forge
	slow                      // pass it on after the rule's delay
)

// rule applies an action to requests that match, skipping the first skip
// of them and acting on at most count (0: every one).
type rule struct {
	match  func(req []byte) bool
	action action
	skip   int
	count  int
	after  time.Duration // duplicate: when the copy is delivered; slow: the delay
	// code and message are the SQLSTATE and the text of answerError's
	// error.
	code, message string
	// forge returns forgeAnswer's answer to a request: the messages up to
	// and including ReadyForQuery (see rowsAnswer).
	forge func(req []byte) []byte
	// thenCut, for loseAnswer, cuts the proxy (as cut) before the client
	// can see its connection end: the server is unreachable from then on.
	thenCut bool

	mu      sync.Mutex
	seen    int
	acted   int
	slowed  int            // slow: requests being held now
	overlap int            // slow: the most held at once
	held    []func() error // hold: deliveries waiting for deliverHeld
	matched chan struct{}  // receives one value per request acted on
}

// startProxy starts a proxy to the server at addr (host:port) and returns
// it and its own address. It closes everything when the test ends.
func startProxy(t testing.TB, addr string) (*proxy, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{listener: l, addr: l.Addr().String(), target: addr}
	t.Cleanup(p.close)
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			in, err := l.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			target := p.target
			p.mu.Unlock()
			out, err := net.Dial("tcp", target)
			if err != nil {
				in.Close()
				continue
			}
			if !p.track(in, out) {
				return
			}
			c := &proxyConn{in: in, out: out}
			p.wg.Add(2)
			go func() {
				defer p.wg.Done()
				defer c.close()
				p.forwardRequests(c)
			}()
			go func() {
				defer p.wg.Done()
				defer c.close()
				p.forwardAnswers(c)
			}()
		}
	}()
	return p, l.Addr().String()
}

// proxyConn is a client's connection and the proxy's to the server.
type proxyConn struct {
	in, out net.Conn
	// loseAnswer is set to the rule of a request whose answer is to be
	// lost when it has been passed on: the answers up to the next
	// ReadyForQuery are dropped, and the connection is cut.
	loseAnswer atomic.Pointer[rule]
	startup    []byte // the client's startup packet, for replays
	once       sync.Once
	// inMu keeps the proxy's own answers whole among the server's.
	inMu sync.Mutex
}

func (c *proxyConn) close() {
	c.once.Do(func() { c.in.Close(); c.out.Close() })
}

func (p *proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		for _, c := range conns {
			c.Close()
		}
		return false
	}
	p.open = append(p.open, conns...)
	return true
}

// close stops the proxy and closes every connection; closing it again
// does nothing more.
func (p *proxy) close() {
	p.listener.Close()
	p.mu.Lock()
	p.stopped = true
	for _, c := range p.open {
		c.Close()
	}
	if p.paused != nil {
		select {
		case <-p.paused:
		default:
			close(p.paused)
		}
	}
	p.mu.Unlock()
	p.wg.Wait()
	p.late.Wait()
}

// setTarget sends new connections to addr; open ones stay where they are.
func (p *proxy) setTarget(addr string) {
	p.mu.Lock()
	p.target = addr
	p.mu.Unlock()
}

// pause holds every byte both ways until resume.
func (p *proxy) pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.paused == nil {
		p.paused = make(chan struct{})
		return
	}
	select {
	case <-p.paused:
		p.paused = make(chan struct{})
	default:
	}
}

// resume delivers what pause held and lets everything through again.
func (p *proxy) resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.paused != nil {
		select {
		case <-p.paused:
		default:
			close(p.paused)
		}
	}
}

// dropConnections closes every connection open now, as a restarting load
// balancer does; clients reconnect.
func (p *proxy) dropConnections() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.open {
		c.Close()
	}
	p.open = nil
}

func (p *proxy) waitUnpaused() {
	p.mu.Lock()
	ch := p.paused
	p.mu.Unlock()
	if ch != nil {
		<-ch
	}
}

// addRule arms r and returns it.
func (p *proxy) addRule(r *rule) *rule {
	r.matched = make(chan struct{}, 1024)
	p.mu.Lock()
	p.rules = append(p.rules, r)
	p.mu.Unlock()
	return r
}

// removeRule disarms r; requests it holds stay held.
func (p *proxy) removeRule(r *rule) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, x := range p.rules {
		if x == r {
			p.rules = append(p.rules[:i], p.rules[i+1:]...)
			return
		}
	}
}

// ruleFor returns the first armed rule that takes this request, counting
// it as seen by every rule that matches.
func (p *proxy) ruleFor(req []byte) *rule {
	p.mu.Lock()
	rules := append([]*rule(nil), p.rules...)
	p.mu.Unlock()
	for _, r := range rules {
		if !r.match(req) {
			continue
		}
		r.mu.Lock()
		r.seen++
		take := r.seen > r.skip && (r.count == 0 || r.acted < r.count)
		if take {
			r.acted++
		}
		r.mu.Unlock()
		if take {
			return r
		}
	}
	return nil
}

// waitMatched waits until r has acted on n requests in all.
func (r *rule) waitMatched(t testing.TB, n int, within time.Duration) {
	t.Helper()
	deadline := time.After(within)
	for {
		r.mu.Lock()
		acted := r.acted
		r.mu.Unlock()
		if acted >= n {
			return
		}
		select {
		case <-r.matched:
		case <-deadline:
			t.Fatalf("the proxy saw %d matching requests in %v, want %d", acted, within, n)
		}
	}
}

// actedOn returns how many requests r has acted on so far.
func (r *rule) actedOn() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.acted
}

// deliverHeld sends every request r holds to the server, each on a
// connection of its own, waits for the server's answers and returns the
// first error.
func (p *proxy) deliverHeld(r *rule) error {
	r.mu.Lock()
	held := r.held
	r.held = nil
	r.mu.Unlock()
	var errs []error
	for _, deliver := range held {
		errs = append(errs, deliver())
	}
	return errors.Join(errs...)
}

// act applies r to a request of c, and reports whether the request is to
// be passed on as usual.
func (p *proxy) act(r *rule, c *proxyConn, req []byte) (passOn bool) {
	defer func() {
		select {
		case r.matched <- struct{}{}:
		default: // nobody waits for that many: acted is counted anyway
		}
	}()
	startup := c.startup
	deliver := func() error { return p.deliver(startup, req) }
	switch r.action {
	case hold:
		r.mu.Lock()
		r.held = append(r.held, deliver)
		r.mu.Unlock()
		return false
	case loseAnswer:
		c.loseAnswer.Store(r)
		return true
	case answerError, forgeAnswer:
		var answer []byte
		if r.action == forgeAnswer {
			answer = r.forge(req)
		} else {
			// What a server answers to a request that fails: an
			// ErrorResponse, then ReadyForQuery (idle: the statement's
			// transaction is over).
			var fields []byte
			for _, f := range []struct {
				code byte
				text string
			}{{'S', "ERROR"}, {'V', "ERROR"}, {'C', r.code}, {'M', r.message}} {
				fields = append(append(append(fields, f.code), f.text...), 0)
			}
			answer = appendMessage(nil, 'E', append(fields, 0))
			answer = appendMessage(answer, 'Z', []byte{'I'})
		}
		c.inMu.Lock()
		_ = p.send(c.in, answer)
		c.inMu.Unlock()
		return false
	case slow:
		r.mu.Lock()
		r.slowed++
		r.overlap = max(r.overlap, r.slowed)
		r.mu.Unlock()
		time.Sleep(r.after)
		r.mu.Lock()
		r.slowed--
		r.mu.Unlock()
		return true
	default: // duplicate
		p.late.Add(1)
		go func() {
			defer p.late.Done()
			time.Sleep(r.after)
			_ = deliver() // the server may be gone by then
		}()
		return true
	}
}

// Startup packet codes (untyped messages: a length, then the code).
const (
	protocolV3      = 196608
	sslRequest      = 80877103
	gssEncRequest   = 80877104
	cancelRequest   = 80877102
	maxStartupBytes = 10000
)

// message reads one typed message: its type byte, length and body.
func readMessage(r io.Reader) ([]byte, error) {
	var head [5]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, err
	}
	n := int(binary.BigEndian.Uint32(head[1:]))
	if n < 4 || n > 1<<30 {
		return nil, fmt.Errorf("a message %q of length %d", head[0], n)
	}
	msg := make([]byte, 1+n)
	copy(msg, head[:])
	_, err := io.ReadFull(r, msg[5:])
	return msg, err
}

// forwardRequests passes the client's startup packet and requests on to
// the server, applying the rules to each request.
func (p *proxy) forwardRequests(c *proxyConn) {
	r := bufio.NewReaderSize(c.in, 64<<10)
	for {
		var head [8]byte
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return
		}
		n := int(binary.BigEndian.Uint32(head[:4]))
		code := binary.BigEndian.Uint32(head[4:])
		if n < 8 || n > maxStartupBytes {
			return
		}
		packet := make([]byte, n)
		copy(packet, head[:])
		if _, err := io.ReadFull(r, packet[8:]); err != nil {
			return
		}
		if code == sslRequest || code == gssEncRequest {
			if _, err := c.in.Write([]byte{'N'}); err != nil {
				return
			}
			continue
		}
		if p.send(c.out, packet) != nil {
			return
		}
		if code == cancelRequest {
			io.Copy(io.Discard, r) // nothing follows a cancel request
			return
		}
		c.startup = packet
		break
	}
	var req []byte
	for {
		msg, err := readMessage(r)
		if err != nil {
			return
		}
		req = append(req, msg...)
		switch msg[0] {
		case 'S', 'Q': // Sync, Query: a request is complete
		case 'X', 'p', 'H', 'd', 'c', 'f': // Terminate, auth, Flush, copy: pass on as they come
			if p.send(c.out, req) != nil {
				return
			}
			req = nil
			continue
		default:
			continue
		}
		if d := time.Duration(p.delay.Load()); d > 0 {
			time.Sleep(d)
		}
		if rl := p.ruleFor(req); rl != nil && !p.act(rl, c, req) {
			req = nil
			continue // the client waits for an answer that never comes
		}
		if p.send(c.out, req) != nil {
			return
		}
		req = nil
	}
}

// forwardAnswers passes the server's messages on to the client, dropping
// the answer to a request whose answer is to be lost.
func (p *proxy) forwardAnswers(c *proxyConn) {
	r := bufio.NewReaderSize(c.out, 64<<10)
	for {
		msg, err := readMessage(r)
		if err != nil {
			return
		}
		if rl := c.loseAnswer.Load(); rl != nil {
			if msg[0] == 'Z' { // ReadyForQuery: the request is done, committed or not
				if rl.thenCut {
					p.cut.Store(true)
				}
				return // closes both connections
			}
			continue
		}
		c.inMu.Lock()
		err = p.send(c.in, msg)
		c.inMu.Unlock()
		if err != nil {
			return
		}
	}
}

// send writes b to dst unless cut, after any pause.
func (p *proxy) send(dst io.Writer, b []byte) error {
	p.waitUnpaused()
	if p.cut.Load() {
		return nil
	}
	_, err := dst.Write(b)
	return err
}

// deliver sends one request on a connection of its own, after a replay of
// the startup packet, and waits until the server has answered it. The
// server's errors in the answer (a request that fails its compare is not
// one) are returned.
func (p *proxy) deliver(startup, req []byte) error {
	if startup == nil {
		return errors.New("no startup packet to replay")
	}
	p.mu.Lock()
	target := p.target
	p.mu.Unlock()
	c, err := net.DialTimeout("tcp", target, 2*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write(startup); err != nil {
		return err
	}
	r := bufio.NewReader(c)
	if err := readUntilReady(r); err != nil {
		return fmt.Errorf("replaying the startup: %w", err)
	}
	if _, err := c.Write(req); err != nil {
		return err
	}
	err = readUntilReady(r)
	c.Write([]byte{'X', 0, 0, 0, 4})
	return err
}

// readUntilReady reads messages up to a ReadyForQuery and returns the
// first error message's text, or an error for an authentication request
// other than "ok".
func readUntilReady(r io.Reader) error {
	var first error
	for {
		msg, err := readMessage(r)
		if err != nil {
			return err
		}
		switch msg[0] {
		case 'Z':
			return first
		case 'R':
			if len(msg) < 9 || binary.BigEndian.Uint32(msg[5:9]) != 0 {
				return errors.New("the server asks for a password; the proxy replays only to trusting servers")
			}
		case 'E':
			if first == nil {
				first = fmt.Errorf("server error: %q", bytes.ReplaceAll(msg[5:], []byte{0}, []byte{' '}))
			}
		}
	}
}

// appendMessage appends a typed message with body to b.
func appendMessage(b []byte, typ byte, body []byte) []byte {
	b = binary.BigEndian.AppendUint32(append(b, typ), uint32(4+len(body)))
	return append(b, body...)
}

// rowsAnswer returns what a server answers to a request of pgx's exec
// mode (Parse, Bind, Describe, Execute, Sync) whose statement returns one
// row of int8 columns, named and valued as given, in text: ParseComplete,
// BindComplete, RowDescription, DataRow, CommandComplete, ReadyForQuery.
func rowsAnswer(names []string, values []int64) []byte {
	answer := appendMessage(nil, '1', nil)
	answer = appendMessage(answer, '2', nil)
	desc := binary.BigEndian.AppendUint16(nil, uint16(len(names)))
	row := binary.BigEndian.AppendUint16(nil, uint16(len(values)))
	for i, name := range names {
		desc = append(append(desc, name...), 0)
		desc = binary.BigEndian.AppendUint32(desc, 0)  // no table
		desc = binary.BigEndian.AppendUint16(desc, 0)  // no column
		desc = binary.BigEndian.AppendUint32(desc, 20) // int8
		desc = binary.BigEndian.AppendUint16(desc, 8)
		desc = binary.BigEndian.AppendUint32(desc, 0xffffffff) // no typmod
		desc = binary.BigEndian.AppendUint16(desc, 0)          // text
		text := strconv.FormatInt(values[i], 10)
		row = append(binary.BigEndian.AppendUint32(row, uint32(len(text))), text...)
	}
	answer = appendMessage(answer, 'T', desc)
	answer = appendMessage(answer, 'D', row)
	answer = appendMessage(answer, 'C', []byte("SELECT 1\x00"))
	return appendMessage(answer, 'Z', []byte{'I'})
}

// calls matches requests that call the schema's function fn with every
// one of args among their parameters (pgx sends them as text).
func calls(fn string, args ...string) func([]byte) bool {
	return func(req []byte) bool {
		if !bytes.Contains(req, []byte("."+fn+"(")) {
			return false
		}
		for _, a := range args {
			if !bytes.Contains(req, []byte(a)) {
				return false
			}
		}
		return true
	}
}
