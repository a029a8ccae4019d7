package etcdnode_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2/hpack"
)

// proxy sits on a loopback port between clients and an etcd server and
// injects faults into what passes, as a network, a load balancer or a
// middlebox would. It understands just enough of both protocols etcd serves
// on one port to act on single requests: HTTP/1.1 (the JSON gateway) and
// gRPC over HTTP/2 (clientv3).
//
// The faults:
//   - cut: drop every byte both ways while connections stay open, so
//     requests hang rather than fail (a partition);
//   - pause: hold every byte both ways until resumed, then deliver it all
//     (a stalled link);
//   - delay: hold each request for a while before passing it on;
//   - hold: keep one request that matches a rule from the server while
//     its client waits and gives up, and deliver it later on a connection
//     of its own (a request stuck in a middlebox, or flushed by the kernel
//     just before the connection's FIN);
//   - lose the answer: deliver a matching request at once on a connection
//     of its own, so that the server applies it, but never answer the
//     client;
//   - duplicate: pass a matching request on and deliver a copy later on a
//     connection of its own (a retrying load balancer).
//
// A gRPC request is the frames of one HTTP/2 stream. To send it on a fresh
// connection the proxy replays the connection's preface, settings and every
// header block in order, so that the server's header compression state is
// the one the client's blocks were made for, and then only the chosen
// stream's data: the other streams opened by the replay never get their
// message and are dropped with the connection. Streams other than unary KV
// calls (lease keep-alives, watches) pass through untouched.
type proxy struct {
	listener net.Listener
	target   string
	cut      atomic.Bool
	delay    atomic.Int64 // ns before each request is passed on

	mu      sync.Mutex
	paused  chan struct{} // closed when not paused; nil means never paused
	rules   []*rule
	open    []net.Conn
	stopped bool
	wg      sync.WaitGroup
	late    sync.WaitGroup // deliveries in flight
	t       testing.TB
}

// action is what a rule does to the requests it matches.
type action int

const (
	hold       action = iota // keep it from the server until deliverHeld
	loseAnswer               // apply it on a connection of its own; never answer the client
	duplicate                // pass it on, and deliver a copy after the rule's delay
)

// rule applies an action to requests whose path and body match, skipping
// the first skip of them and acting on at most count (0: every one).
type rule struct {
	match  func(path string, body []byte) bool
	action action
	skip   int
	count  int
	after  time.Duration // duplicate: when the copy is delivered

	mu      sync.Mutex
	seen    int
	acted   int
	held    []func() error // hold: deliveries waiting for deliverHeld
	matched chan struct{}  // receives one value per request acted on
}

// startProxy starts a proxy to endpoint's host and returns it and its own
// endpoint. It closes everything when the test ends.
func startProxy(t testing.TB, endpoint string) (*proxy, string) {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{listener: l, target: u.Host, t: t}
	t.Cleanup(p.close)
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			in, err := l.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", p.target)
			if err != nil {
				in.Close()
				continue
			}
			if !p.track(in, out) {
				return
			}
			p.wg.Add(2)
			go func() {
				defer p.wg.Done()
				defer out.Close()
				p.forwardRequests(out, in)
			}()
			go func() {
				defer p.wg.Done()
				defer in.Close()
				p.pipe(in, out)
			}()
		}
	}()
	return p, "http://" + l.Addr().String()
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
func (p *proxy) ruleFor(path string, body []byte) *rule {
	p.mu.Lock()
	rules := append([]*rule(nil), p.rules...)
	p.mu.Unlock()
	for _, r := range rules {
		if !r.match(path, body) {
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

// act applies r to a request whose delivery on a fresh connection is
// deliver, and reports whether the request is also passed on as usual.
func (p *proxy) act(r *rule, deliver func() error) (passOn bool) {
	defer func() {
		select {
		case r.matched <- struct{}{}:
		default: // nobody waits for that many: acted is counted anyway
		}
	}()
	switch r.action {
	case hold:
		r.mu.Lock()
		r.held = append(r.held, deliver)
		r.mu.Unlock()
		return false
	case loseAnswer:
		if err := deliver(); err != nil {
			p.t.Errorf("proxy: delivering a request whose answer is lost: %v", err)
		}
		return false
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

// pipe copies src to dst until either fails, dropping the bytes while cut
// and holding them while paused.
func (p *proxy) pipe(dst io.Writer, src io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.waitUnpaused()
			if !p.cut.Load() {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					return
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// send writes b to the server unless cut, after the delay and any pause.
func (p *proxy) send(dst io.Writer, b []byte) error {
	if d := time.Duration(p.delay.Load()); d > 0 {
		time.Sleep(d)
	}
	p.waitUnpaused()
	if p.cut.Load() {
		return nil
	}
	_, err := dst.Write(b)
	return err
}

const http2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// forwardRequests passes the client's requests on to the server, one at a
// time, applying the rules.
func (p *proxy) forwardRequests(dst net.Conn, src net.Conn) {
	r := bufio.NewReaderSize(src, 64<<10)
	start, err := r.Peek(len(http2Preface))
	if err == nil && string(start) == http2Preface {
		p.forwardHTTP2(dst, r)
		return
	}
	for {
		req, err := http.ReadRequest(r)
		if err != nil {
			return
		}
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		raw, err := httputil.DumpRequest(req, true)
		if err != nil {
			return
		}
		if rl := p.ruleFor(req.URL.Path, body); rl != nil {
			if !p.act(rl, func() error { return p.deliverHTTP1(raw) }) {
				continue // the client waits for an answer that never comes
			}
		}
		if p.send(dst, raw) != nil {
			return
		}
	}
}

// deliverHTTP1 sends one HTTP/1.1 request on a connection of its own and
// reads the answer.
func (p *proxy) deliverHTTP1(raw []byte) error {
	c, err := net.DialTimeout("tcp", p.target, 2*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write(raw); err != nil {
		return err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)) // a keep-alive stream ends with the deadline
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		err = nil
	}
	return err
}

// HTTP/2 frame types and flags the proxy looks at (RFC 9113).
const (
	frameData         = 0x0
	frameHeaders      = 0x1
	frameRSTStream    = 0x3
	frameSettings     = 0x4
	frameContinuation = 0x9
	flagEndStream     = 0x1
	flagEndHeaders    = 0x4
	flagPadded        = 0x8
	flagPriority      = 0x20
)

type frame struct {
	header [9]byte
	body   []byte
}

func (f *frame) kind() byte      { return f.header[3] }
func (f *frame) flags() byte     { return f.header[4] }
func (f *frame) stream() uint32  { return binary.BigEndian.Uint32(f.header[5:]) & (1<<31 - 1) }
func (f *frame) bytes() []byte   { return append(f.header[:], f.body...) }
func (f *frame) endStream() bool { return f.flags()&flagEndStream != 0 }

func readFrame(r io.Reader) (*frame, error) {
	f := new(frame)
	if _, err := io.ReadFull(r, f.header[:]); err != nil {
		return nil, err
	}
	n := int(f.header[0])<<16 | int(f.header[1])<<8 | int(f.header[2])
	f.body = make([]byte, n)
	if _, err := io.ReadFull(r, f.body); err != nil {
		return nil, err
	}
	return f, nil
}

// headerBlockFragment returns the HPACK bytes of a HEADERS frame, without
// its padding and priority fields.
func headerBlockFragment(f *frame) []byte {
	b := f.body
	pad := 0
	if f.flags()&flagPadded != 0 && len(b) > 0 {
		pad, b = int(b[0]), b[1:]
	}
	if f.flags()&flagPriority != 0 && len(b) >= 5 {
		b = b[5:]
	}
	if pad <= len(b) {
		b = b[:len(b)-pad]
	}
	return b
}

// kvStream is a unary KV call whose message the proxy collects before
// deciding what to do with it.
type kvStream struct {
	path   string
	frames []*frame
	body   []byte
}

// forwardHTTP2 passes a gRPC connection's frames on, collecting the data
// of unary KV calls to apply the rules to each whole request.
func (p *proxy) forwardHTTP2(dst net.Conn, r *bufio.Reader) {
	preface := make([]byte, len(http2Preface))
	if _, err := io.ReadFull(r, preface); err != nil || p.send(dst, preface) != nil {
		return
	}
	var (
		replayMu sync.Mutex
		replay   = append([]byte(nil), preface...) // preface, settings and header blocks so far
		decoder  = hpack.NewDecoder(4096, nil)
		block    []byte
		blockID  uint32
		kv       = map[uint32]*kvStream{}
	)
	prefix := func() []byte {
		replayMu.Lock()
		defer replayMu.Unlock()
		return append([]byte(nil), replay...)
	}
	for {
		f, err := readFrame(r)
		if err != nil {
			return
		}
		switch f.kind() {
		case frameSettings, frameHeaders, frameContinuation:
			replayMu.Lock()
			replay = append(replay, f.bytes()...)
			replayMu.Unlock()
		}
		switch f.kind() {
		case frameHeaders, frameContinuation:
			if f.kind() == frameHeaders {
				block, blockID = headerBlockFragment(f), f.stream()
			} else {
				block = append(block, f.body...)
			}
			if f.flags()&flagEndHeaders != 0 {
				fields, err := decoder.DecodeFull(block)
				if err != nil {
					p.t.Errorf("proxy: decoding a header block: %v", err)
					return
				}
				for _, hf := range fields {
					if hf.Name == ":path" && strings.HasPrefix(hf.Value, "/etcdserverpb.KV/") {
						kv[blockID] = &kvStream{path: hf.Value}
					}
				}
			}
		case frameData:
			if s := kv[f.stream()]; s != nil {
				s.frames = append(s.frames, f)
				s.body = append(s.body, f.body...)
				if !f.endStream() {
					continue
				}
				delete(kv, f.stream())
				message := s.body
				if len(message) >= 5 {
					message = message[5:] // gRPC's length-prefixed message
				}
				if rl := p.ruleFor(s.path, message); rl != nil {
					id, frames, head := f.stream(), s.frames, prefix()
					if !p.act(rl, func() error { return p.deliverHTTP2(head, id, frames) }) {
						continue
					}
				}
				for _, df := range s.frames {
					if p.send(dst, df.bytes()) != nil {
						return
					}
				}
				continue
			}
		case frameRSTStream:
			delete(kv, f.stream())
		}
		if p.send(dst, f.bytes()) != nil {
			return
		}
	}
}

// deliverHTTP2 replays a connection's preface, settings and header blocks
// on a connection of its own, then the data of one stream, and waits until
// the server has answered that stream.
func (p *proxy) deliverHTTP2(head []byte, stream uint32, data []*frame) error {
	c, err := net.DialTimeout("tcp", p.target, 2*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	msg := append([]byte(nil), head...)
	for _, f := range data {
		msg = append(msg, f.bytes()...)
	}
	if _, err := c.Write(msg); err != nil {
		return err
	}
	r := bufio.NewReader(c)
	for {
		f, err := readFrame(r)
		if err != nil {
			return err
		}
		if f.kind() == frameSettings && f.flags()&0x1 == 0 {
			ack := [9]byte{3: frameSettings, 4: 0x1}
			c.Write(ack[:])
		}
		if f.stream() == stream && (f.endStream() || f.kind() == frameRSTStream) {
			return nil // the answer's trailers: the server has handled it
		}
	}
}

// mentions reports whether a request body names key, raw (gRPC's
// protobuf) or in base64 (the JSON gateway).
func mentions(body []byte, key string) bool {
	return bytes.Contains(body, []byte(key)) ||
		bytes.Contains(body, []byte(base64.StdEncoding.EncodeToString([]byte(key))))
}

// isTxn reports whether path is a KV transaction in either protocol.
func isTxn(path string) bool {
	return path == "/v3/kv/txn" || path == "/etcdserverpb.KV/Txn"
}

// recordTxn matches transactions that name the continuity record key.
func recordTxn(key string) func(string, []byte) bool {
	return func(path string, body []byte) bool { return isTxn(path) && mentions(body, key) }
}
