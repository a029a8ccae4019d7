package etcdnode_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2/hpack"
)

// proxy sits on a loopback port between clients and an etcd server and
// injects faults into what passes, as a network, a load balancer or a
// middlebox would. It understands just enough of gRPC over HTTP/2, which
// etcd's client speaks, to act on single requests; anything else passes as
// bytes, subject only to cut, pause and delay.
//
// The faults:
//   - cut: drop every byte both ways while connections stay open, so
//     requests hang rather than fail (a partition);
//   - pause: hold every byte both ways until resumed, then deliver it all
//     (a stalled link);
//   - delay: hold each request for a while before passing it on;
//   - late answers: deliver each of the server's answers a while after it
//     came, in order (a server that applies at once and answers late, a
//     slow or congested return path): the delay counts from each byte's
//     arrival, it does not add up;
//   - hold: keep one request that matches a rule from the server while
//     its client waits and gives up, and deliver it later on a connection
//     of its own (a request stuck in a middlebox, or flushed by the kernel
//     just before the connection's FIN);
//   - lose the answer: deliver a matching request at once on a connection
//     of its own, so that the server applies it, but never answer the
//     client;
//   - duplicate: pass a matching request on and deliver a copy later on a
//     connection of its own (a retrying load balancer);
//   - answer an error: answer a matching request with an error of the
//     proxy's own and never pass it on (a gateway answering 503, a proxy
//     that refuses, a server text of the test's choosing);
//   - rewrite the answer: pass a matching request on and change the
//     server's answer to it on the way back (a broken proxy, or a man in
//     the middle);
//   - forge the answer: answer a matching request with one of the proxy's
//     own making, without the server (a man in the middle).
//
// A gRPC request is the frames of one HTTP/2 stream. To send it on a fresh
// connection the proxy replays the connection's preface, settings and every
// header block in order, so that the server's header compression state is
// the one the client's blocks were made for, and then only the chosen
// stream's data: the other streams opened by the replay never get their
// message and are dropped with the connection. The rules see the messages
// of KV and Lease calls (a keep-alive stream's one by one); other streams
// (watches) pass through untouched. To answer a request itself, the proxy
// resets the stream towards the server (whose header compression state
// has seen its headers) and writes the answer's frames to the client,
// with header blocks that leave the client's compression state as the
// server's blocks expect it, and gives the client back the flow-control
// window the swallowed request took.
type proxy struct {
	listener net.Listener
	target   string
	cut      atomic.Bool
	delay    atomic.Int64 // ns before each request is passed on
	late     atomic.Int64 // ns before each answer is passed on
	accepted atomic.Int64 // client connections so far

	// opened counts the gRPC calls opened through the proxy by path, of
	// every service (a stream counts once, whatever it carries).
	openedMu sync.Mutex
	opened   map[string]int

	mu       sync.Mutex
	paused   chan struct{} // closed when not paused; nil means never paused
	rules    []*rule
	open     []net.Conn
	stopped  bool
	wg       sync.WaitGroup
	inFlight sync.WaitGroup // deliveries in flight
	t        testing.TB
}

// action is what a rule does to the requests it matches.
type action int

const (
	hold          action = iota // keep it from the server until deliverHeld
	loseAnswer                  // apply it on a connection of its own; never answer the client
	duplicate                   // pass it on, and deliver a copy after the rule's delay
	answerError                 // answer it with the rule's error; never pass it on
	rewriteAnswer               // pass it on; rewrite the server's answer with the rule's rewrite
	forgeAnswer                 // answer it with the rule's forge; never pass it on
)

// rule applies an action to requests whose path and body match, skipping
// the first skip of them and acting on at most count (0: every one).
type rule struct {
	match  func(path string, body []byte) bool
	action action
	skip   int
	count  int
	after  time.Duration // duplicate: when the copy is delivered
	// answerError: the gRPC status code and message of the answer.
	code    int
	message string
	// rewriteAnswer: the server's answer message (protobuf), rewritten;
	// and if claim is set, the length gRPC's prefix claims for it.
	rewrite func(answer []byte) []byte
	claim   uint32
	// forgeAnswer: the answer message to a request message.
	forge func(request []byte) []byte

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
			p.accepted.Add(1)
			out, err := net.Dial("tcp", p.target)
			if err != nil {
				in.Close()
				continue
			}
			if !p.track(in, out) {
				return
			}
			pc := &proxyConn{p: p, client: in, answers: map[uint32]*rule{}, forged: map[uint32]bool{}}
			p.wg.Add(2)
			go func() {
				defer p.wg.Done()
				defer out.Close()
				pc.forwardRequests(out, in)
			}()
			go func() {
				defer p.wg.Done()
				defer in.Close()
				pc.forwardAnswers(p.lateReader(out))
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
	p.inFlight.Wait()
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

// countOpened counts a call opened to path.
func (p *proxy) countOpened(path string) {
	p.openedMu.Lock()
	defer p.openedMu.Unlock()
	if p.opened == nil {
		p.opened = make(map[string]int)
	}
	p.opened[path]++
}

// openedCalls returns how many calls to path were opened through the
// proxy so far.
func (p *proxy) openedCalls(path string) int {
	p.openedMu.Lock()
	defer p.openedMu.Unlock()
	return p.opened[path]
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
	defer r.signal()
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
		p.inFlight.Add(1)
		go func() {
			defer p.inFlight.Done()
			time.Sleep(r.after)
			_ = deliver() // the server may be gone by then
		}()
		return true
	}
}

// signal tells waitMatched that r acted once more.
func (r *rule) signal() {
	select {
	case r.matched <- struct{}{}:
	default: // nobody waits for that many: acted is counted anyway
	}
}

// lateReader returns what reads src, each chunk held until it is p.late
// old (the setting when the chunk is read from the result, so that a test
// can turn late answers on and off on open connections). A goroutine reads
// src as fast as it sends, so that one chunk's wait does not hold up the
// next one's clock.
func (p *proxy) lateReader(src net.Conn) io.Reader {
	chunks := make(chan lateChunk, 1024)
	go func() {
		defer close(chunks)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			chunks <- lateChunk{buf[:n], time.Now(), err}
			if err != nil {
				return
			}
		}
	}()
	return &lateChunks{p: p, chunks: chunks}
}

type lateChunk struct {
	b   []byte
	at  time.Time
	err error
}

type lateChunks struct {
	p      *proxy
	chunks chan lateChunk
	rest   []byte
	err    error
}

func (l *lateChunks) Read(b []byte) (int, error) {
	for len(l.rest) == 0 {
		if l.err != nil {
			return 0, l.err
		}
		c, ok := <-l.chunks
		if !ok {
			return 0, io.EOF
		}
		if wait := time.Until(c.at.Add(time.Duration(l.p.late.Load()))); wait > 0 {
			time.Sleep(wait)
		}
		l.rest, l.err = c.b, c.err
	}
	n := copy(b, l.rest)
	l.rest = l.rest[n:]
	return n, nil
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

// proxyConn is one client connection through the proxy and its own to
// the server.
type proxyConn struct {
	p      *proxy
	client net.Conn
	// wmu orders writes to the client: the server's answers and the
	// proxy's own, a frame (or a header block) at a time.
	wmu sync.Mutex

	mu      sync.Mutex
	answers map[uint32]*rule // HTTP/2 streams whose answers a rule rewrites
	forged  map[uint32]bool  // HTTP/2 streams the proxy answers itself
}

// toClient writes b to the client unless cut, after any pause. The caller
// holds wmu.
func (pc *proxyConn) toClient(b []byte) error {
	pc.p.waitUnpaused()
	if pc.p.cut.Load() {
		return nil
	}
	_, err := pc.client.Write(b)
	return err
}

// forwardAnswers passes the server's answers on to the client: HTTP/2
// frame by frame, rewriting the answers a rule asks for, and anything else
// as bytes.
func (pc *proxyConn) forwardAnswers(src io.Reader) {
	r := bufio.NewReaderSize(src, 64<<10)
	start, err := r.Peek(5)
	if err != nil {
		return
	}
	if string(start) == "HTTP/" {
		buf := make([]byte, 32<<10)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				pc.wmu.Lock()
				werr := pc.toClient(buf[:n])
				pc.wmu.Unlock()
				if werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}
	pending := map[uint32][]byte{} // answer bytes of rewritten streams not yet a whole message
	inBlock := false               // wmu is held between a HEADERS frame and its END_HEADERS
	defer func() {
		if inBlock {
			pc.wmu.Unlock()
		}
	}()
	for {
		f, err := readFrame(r)
		if err != nil {
			return
		}
		pc.mu.Lock()
		rl, forged := pc.answers[f.stream()], pc.forged[f.stream()]
		pc.mu.Unlock()
		if forged {
			continue // the proxy answers that stream; the server was told to drop it
		}
		if f.kind() == frameData && rl != nil {
			buf := append(pending[f.stream()], dataPayload(f)...)
			var out []byte
			for len(buf) >= 5 && len(buf) >= 5+int(binary.BigEndian.Uint32(buf[1:5])) {
				n := 5 + int(binary.BigEndian.Uint32(buf[1:5]))
				msg := grpcMessage(rl.rewrite(buf[5:n]))
				if rl.claim != 0 {
					binary.BigEndian.PutUint32(msg[1:5], rl.claim)
				}
				out = append(out, msg...)
				buf = buf[n:]
			}
			pending[f.stream()] = buf
			if len(out) == 0 && !f.endStream() {
				continue
			}
			pc.wmu.Lock()
			err := pc.toClient(dataFrames(f.stream(), out, f.endStream()))
			pc.wmu.Unlock()
			if err != nil {
				return
			}
			continue
		}
		if !inBlock {
			pc.wmu.Lock()
		}
		inBlock = (f.kind() == frameHeaders || f.kind() == frameContinuation) && f.flags()&flagEndHeaders == 0
		err = pc.toClient(f.bytes())
		if !inBlock {
			pc.wmu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// forwardRequests passes the client's requests on to the server, one at a
// time, applying the rules.
func (pc *proxyConn) forwardRequests(dst net.Conn, src net.Conn) {
	p := pc.p
	r := bufio.NewReaderSize(src, 64<<10)
	start, err := r.Peek(len(http2Preface))
	if err == nil && string(start) == http2Preface {
		pc.forwardHTTP2(dst, r)
		return
	}
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 && p.send(dst, buf[:n]) != nil {
			return
		}
		if err != nil {
			return
		}
	}
}

// HTTP/2 frame types and flags the proxy looks at (RFC 9113).
const (
	frameData         = 0x0
	frameHeaders      = 0x1
	frameRSTStream    = 0x3
	frameSettings     = 0x4
	frameWindowUpdate = 0x8
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

// dataPayload returns a DATA frame's data, without its padding.
func dataPayload(f *frame) []byte {
	b := f.body
	if f.flags()&flagPadded != 0 && len(b) > 0 {
		pad := int(b[0])
		b = b[1:]
		if pad <= len(b) {
			b = b[:len(b)-pad]
		}
	}
	return b
}

// grpcMessage returns msg with gRPC's length prefix, uncompressed.
func grpcMessage(msg []byte) []byte {
	out := make([]byte, 5, 5+len(msg))
	binary.BigEndian.PutUint32(out[1:], uint32(len(msg)))
	return append(out, msg...)
}

// maxFrame is the largest frame payload a peer must accept unless it says
// otherwise (SETTINGS_MAX_FRAME_SIZE), which gRPC's client does not.
const maxFrame = 16384

// frameBytes returns a frame's bytes.
func frameBytes(kind, flags byte, stream uint32, payload []byte) []byte {
	b := make([]byte, 9, 9+len(payload))
	b[0], b[1], b[2] = byte(len(payload)>>16), byte(len(payload)>>8), byte(len(payload))
	b[3], b[4] = kind, flags
	binary.BigEndian.PutUint32(b[5:], stream)
	return append(b, payload...)
}

// dataFrames returns data as DATA frames of stream, the last one ending
// the stream if end.
func dataFrames(stream uint32, data []byte, end bool) []byte {
	var out []byte
	for {
		n := min(len(data), maxFrame)
		var flags byte
		if n == len(data) && end {
			flags = flagEndStream
		}
		out = append(out, frameBytes(frameData, flags, stream, data[:n])...)
		if data = data[n:]; len(data) == 0 {
			return out
		}
	}
}

// headerFrame returns a HEADERS frame of stream with fields, encoded as
// literals that are never indexed: they leave the client's dynamic table
// as the server's own header blocks expect it.
func headerFrame(stream uint32, end bool, fields ...string) []byte {
	var block bytes.Buffer
	enc := hpack.NewEncoder(&block)
	for i := 0; i+1 < len(fields); i += 2 {
		enc.WriteField(hpack.HeaderField{Name: fields[i], Value: fields[i+1], Sensitive: true})
	}
	flags := byte(flagEndHeaders)
	if end {
		flags |= flagEndStream
	}
	return frameBytes(frameHeaders, flags, stream, block.Bytes())
}

// windowUpdate returns a WINDOW_UPDATE frame for the connection.
func windowUpdate(increment int) []byte {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(increment))
	return frameBytes(frameWindowUpdate, 0, 0, b[:])
}

// resetStream returns a RST_STREAM frame with the error code CANCEL.
func resetStream(stream uint32) []byte {
	return frameBytes(frameRSTStream, 0, stream, []byte{0, 0, 0, 0x8})
}

// percentEncode encodes a gRPC status message as the grpc-message header
// carries it.
func percentEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > '~' || c == '%' {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// swallowed returns the flow-control window that frames took from the
// connection: what the proxy gives the client back for a request the
// server never saw.
func swallowed(frames []*frame) int {
	n := 0
	for _, f := range frames {
		if f.kind() == frameData {
			n += len(f.body)
		}
	}
	return n
}

// answerGRPC answers a gRPC request itself: the server drops the stream,
// and the client gets the window of the request back and then, for
// answerError, a status alone, or for forgeAnswer, headers and the forged
// message, the stream left open (a keep-alive stream's next message is
// forged too).
func (pc *proxyConn) answerGRPC(dst net.Conn, stream uint32, frames []*frame, message []byte, rl *rule) error {
	defer rl.signal()
	pc.mu.Lock()
	first := !pc.forged[stream]
	pc.forged[stream] = true
	pc.mu.Unlock()
	if first {
		if err := pc.p.send(dst, resetStream(stream)); err != nil {
			return err
		}
	}
	var out []byte
	if n := swallowed(frames); n > 0 {
		out = windowUpdate(n)
	}
	switch rl.action {
	case answerError:
		out = append(out, headerFrame(stream, true, ":status", "200", "content-type", "application/grpc",
			"grpc-status", strconv.Itoa(rl.code), "grpc-message", percentEncode(rl.message))...)
	default: // forgeAnswer
		if first {
			out = append(out, headerFrame(stream, false, ":status", "200", "content-type", "application/grpc")...)
		}
		out = append(out, dataFrames(stream, grpcMessage(rl.forge(message)), false)...)
	}
	pc.wmu.Lock()
	defer pc.wmu.Unlock()
	return pc.toClient(out)
}

// forgedData takes a DATA frame of a stream the proxy answers: the client
// gets its window back, and a whole message that a rule still forges an
// answer to gets one.
func (pc *proxyConn) forgedData(dst net.Conn, s *callStream, f *frame) error {
	if len(f.body) > 0 {
		pc.wmu.Lock()
		err := pc.toClient(windowUpdate(len(f.body)))
		pc.wmu.Unlock()
		if err != nil {
			return err
		}
	}
	if s == nil {
		return nil
	}
	s.body = append(s.body, dataPayload(f)...)
	if len(s.body) == 0 || !s.complete(f.endStream()) {
		return nil
	}
	message := s.body[5:]
	s.frames, s.body = nil, nil
	if rl := pc.p.ruleFor(s.path, message); rl != nil && rl.action == forgeAnswer {
		return pc.answerGRPC(dst, f.stream(), nil, message, rl)
	}
	return nil
}

// callStream is a KV or Lease call whose message the proxy collects
// before deciding what to do with it: a unary call's whole request, or one
// message of a keep-alive stream.
type callStream struct {
	path   string
	unary  bool
	frames []*frame
	body   []byte
}

// complete reports whether s holds a whole request: a unary call's, with
// the end of its stream, or one gRPC message of a stream.
func (s *callStream) complete(end bool) bool {
	if s.unary {
		return end
	}
	return len(s.body) >= 5 && len(s.body) == 5+int(binary.BigEndian.Uint32(s.body[1:5]))
}

// forwardHTTP2 passes a gRPC connection's frames on, collecting the data
// of KV and Lease calls to apply the rules to each whole request.
func (pc *proxyConn) forwardHTTP2(dst net.Conn, r *bufio.Reader) {
	p := pc.p
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
		calls    = map[uint32]*callStream{}
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
					if hf.Name == ":path" {
						p.countOpened(hf.Value)
					}
					if hf.Name == ":path" && (strings.HasPrefix(hf.Value, "/etcdserverpb.KV/") ||
						strings.HasPrefix(hf.Value, "/etcdserverpb.Lease/")) {
						calls[blockID] = &callStream{path: hf.Value, unary: hf.Value != "/etcdserverpb.Lease/LeaseKeepAlive"}
					}
				}
			}
		case frameData:
			pc.mu.Lock()
			forged := pc.forged[f.stream()]
			pc.mu.Unlock()
			if forged {
				// The rest of a stream the proxy answers (a keep-alive
				// stream's next message, or its end): never the server's.
				if pc.forgedData(dst, calls[f.stream()], f) != nil {
					return
				}
				continue
			}
			if s := calls[f.stream()]; s != nil {
				s.frames = append(s.frames, f)
				s.body = append(s.body, dataPayload(f)...)
				if !s.complete(f.endStream()) {
					continue
				}
				frames, message := s.frames, s.body
				s.frames, s.body = nil, nil
				if s.unary {
					delete(calls, f.stream())
				}
				if len(message) >= 5 {
					message = message[5:] // gRPC's length-prefixed message
				}
				if rl := p.ruleFor(s.path, message); rl != nil {
					id, head := f.stream(), prefix()
					switch rl.action {
					case answerError, forgeAnswer:
						if pc.answerGRPC(dst, id, frames, message, rl) != nil {
							return
						}
						continue
					case rewriteAnswer:
						pc.mu.Lock()
						pc.answers[id] = rl
						pc.mu.Unlock()
						rl.signal()
					default:
						if !p.act(rl, func() error { return p.deliverHTTP2(head, id, frames) }) {
							continue
						}
					}
				}
				for _, df := range frames {
					if p.send(dst, df.bytes()) != nil {
						return
					}
				}
				continue
			}
		case frameRSTStream, frameWindowUpdate:
			pc.mu.Lock()
			forged := pc.forged[f.stream()]
			pc.mu.Unlock()
			if f.kind() == frameRSTStream {
				delete(calls, f.stream())
			}
			if forged {
				continue // the server has dropped that stream already
			}
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

// mentions reports whether a request message names key.
func mentions(body []byte, key string) bool { return bytes.Contains(body, []byte(key)) }

// isTxn reports whether path is a KV transaction.
func isTxn(path string) bool { return path == "/etcdserverpb.KV/Txn" }

// recordTxn matches transactions that name the continuity record key.
func recordTxn(key string) func(string, []byte) bool {
	return func(path string, body []byte) bool { return isTxn(path) && mentions(body, key) }
}
