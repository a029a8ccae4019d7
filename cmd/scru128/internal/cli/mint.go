//go:build (unix && !aix) || windows

package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// minter makes gen's IDs, as lines.
type minter interface {
	// mint appends up to k lines (IDs in the output form, each followed by
	// a newline) to dst and returns how many it appended: at least one
	// unless it fails, and only as many as it can make without delay, so
	// that the caller can act on a flush or an interrupt between calls.
	// When minting has to wait (a full counter, a clock behind the last ID)
	// it returns errWouldWait: the caller flushes its output, calls wait,
	// then mint again.
	mint(dst []byte, k int) ([]byte, int, error)
	// wait blocks until mint can go on, or returns ErrInterrupted when stop
	// is closed first.
	wait(stop <-chan struct{}) error
}

var (
	errWouldWait = errors.New("minting has to wait")
	// ErrInterrupted is what minting returns when a signal stopped it: gen
	// then ends with the signal's status, without reporting an error.
	ErrInterrupted = errors.New("interrupted")
)

// mintOptions are gen's choices that shape a minter.
type mintOptions struct {
	out   outputForm
	batch int // how many IDs the run needs at most, to size batches
	// atMillis is gen -time as Unix milliseconds, or 0 for now: no format's
	// generator accepts time 0, so gen never passes it for -time.
	atMillis int64
	// node is the node ID of a format minted under one (format.node).
	node Node
}

// idMinter is the minter of one format's ID type T.
type idMinter[T any] struct {
	next    func() (T, error) // errWouldWait if it has to wait
	waitFor func(stop <-chan struct{}) (T, error)
	encode  func(dst []byte, id T) []byte

	// fill, if set, mints len(ids) IDs at once and never waits; mint then
	// fills batch and takes IDs from it, a run at a time, instead of
	// calling next.
	fill    func(ids []T) error
	batch   []T
	pending []T // the IDs of batch not written yet

	held    T // minted by wait, to be returned by the next mint
	hasHeld bool
}

func (m *idMinter[T]) mint(dst []byte, k int) ([]byte, int, error) {
	if m.hasHeld {
		m.hasHeld = false
		return append(m.encode(dst, m.held), '\n'), 1, nil
	}
	if m.fill == nil {
		id, err := m.next()
		if err != nil {
			return dst, 0, err
		}
		return append(m.encode(dst, id), '\n'), 1, nil
	}
	if len(m.pending) == 0 {
		if err := m.fill(m.batch); err != nil {
			return dst, 0, err
		}
		m.pending = m.batch
	}
	// One indirect call per ID, straight into the output buffer: the
	// layers a line at a time would cost (the interface call, a closure
	// returning the 16-byte ID through memory) were a fifth of the time.
	ids := m.pending[:min(len(m.pending), k)]
	for _, id := range ids {
		dst = append(m.encode(dst, id), '\n')
	}
	m.pending = m.pending[len(ids):]
	return dst, len(ids), nil
}

func (m *idMinter[T]) wait(stop <-chan struct{}) error {
	if m.waitFor == nil { // next never asks to wait
		return nil
	}
	id, err := m.waitFor(stop)
	if err != nil {
		return err
	}
	m.held, m.hasHeld = id, true
	return nil
}

// maxLine bounds one line of gen's output: a UUID and a newline.
const maxLine = 64

// errWrite marks an error of writing the output.
var errWrite = errors.New("writing output")

// writeIDs writes IDs from m, one per line, n of them, or until it fails or
// is stopped if n is negative. w is flushed when c asks for it, whenever m
// has to wait, and at the end; IDs m made before a failure are left in w
// for the caller to flush. It returns ErrInterrupted if c was stopped, an
// error matching errWrite if writing failed, or m's error.
func writeIDs(w *bufio.Writer, n int64, m minter, c *control) error {
	flush := func() error {
		// While it writes, gen may be held up by its reader: a signal's
		// handling must not take it to be waiting for etcd.
		c.stop.writing.Store(true)
		defer c.stop.writing.Store(false)
		if err := w.Flush(); err != nil {
			return fmt.Errorf("%w: %w", errWrite, err)
		}
		return nil
	}
	for i := int64(0); n < 0 || i < n; {
		// A flush may block for long on a slow reader: the check for a
		// signal comes after it, so that no line is minted after the
		// signal was seen.
		if w.Available() < maxLine {
			if err := flush(); err != nil {
				return err
			}
		}
		if c.attention.Load() {
			c.attention.Store(false)
			if c.stopped.Load() {
				return ErrInterrupted
			}
			if err := flush(); err != nil {
				return err
			}
		}
		k := max(w.Available()/maxLine, 1)
		if n >= 0 {
			k = int(min(int64(k), n-i))
		}
		lines, done, err := m.mint(w.AvailableBuffer(), k)
		w.Write(lines) // cannot fail: it fits the buffer
		i += int64(done)
		if err == errWouldWait {
			if err := flush(); err != nil {
				return err
			}
			if err := m.wait(c.stop.done); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
	}
	return flush()
}

// control tells a running gen to flush (every 100 ms) or to stop (on an
// interrupt). The minting loop checks one atomic flag per ID, attention,
// and looks further only when it is set.
type control struct {
	attention atomic.Bool
	stopped   atomic.Bool
	stop      *Stopper
	done      chan struct{}
	exited    chan struct{}
}

func startControl(stop *Stopper) *control {
	c := &control{stop: stop, done: make(chan struct{}), exited: make(chan struct{})}
	go func() {
		defer close(c.exited)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		stopped := stop.done
		for {
			select {
			case <-tick.C:
				c.attention.Store(true)
			case <-stopped:
				c.stopped.Store(true)
				c.attention.Store(true)
				stopped = nil
			case <-c.done:
				return
			}
		}
	}()
	return c
}

// end stops the control goroutine and waits for it.
func (c *control) end() {
	close(c.done)
	<-c.exited
}

// After SIGINT, SIGTERM, SIGHUP or another of endingSignals gen goes on for a while to finish what it must:
// flush its last lines, save its state, give its node ID back to etcd.
// Whatever is not done by then is given up, so that gen ends within a
// second of the signal.
const (
	// signalGrace bounds flushing, saving the state and waiting out the
	// last ID's tick.
	signalGrace = 500 * time.Millisecond
	// etcdGrace bounds giving the node ID back to etcd, which comes after
	// the last lines are written.
	etcdGrace = 700 * time.Millisecond
	// hardStop is when gen exits whatever it is doing, if the run allows
	// it (see Stopper.SetAbandon): blocked writing to a reader that does
	// not keep up, say. It leaves time for what it says, and then some.
	hardStop = 850 * time.Millisecond
)

// pipeBuf is the largest write to a pipe that the system makes at once,
// never in part (POSIX's PIPE_BUF, 4,096 bytes on Linux, and at least 512
// everywhere): gen writes to a pipe in runs of whole lines no longer, so
// that exiting while blocked on a slow reader leaves whole lines only.
const pipeBuf = 4096

// Stopper is the first of endingSignals to reach a gen run, once it comes.
type Stopper struct {
	done        chan struct{} // closed when the signal comes
	expired     chan struct{} // closed signalGrace later
	etcdExpired chan struct{} // closed etcdGrace later
	sig         os.Signal     // set before done is closed
	quit        chan struct{} // closed by release

	// writing is set while gen writes its output, so that a signal's
	// handling can tell a run held up by its reader from one waiting for
	// etcd.
	writing atomic.Bool

	mu       sync.Mutex
	abandon  func() int // see SetAbandon
	released bool
}

// watchSignals returns a Stopper for the signals e delivers from now on,
// and a function that stops watching.
func watchSignals(e *Env) (s *Stopper, release func()) {
	s = &Stopper{done: make(chan struct{}), expired: make(chan struct{}), etcdExpired: make(chan struct{}), quit: make(chan struct{})}
	signals := e.interrupts()
	go func() {
		select {
		case s.sig = <-signals:
		case <-s.quit:
			return
		}
		close(s.done)
		time.AfterFunc(signalGrace, func() { close(s.expired) })
		time.AfterFunc(etcdGrace, func() { close(s.etcdExpired) })
		if e.exit != nil {
			time.AfterFunc(hardStop, func() { s.stopHard(e) })
		}
	}()
	return s, func() {
		s.mu.Lock()
		s.released = true
		s.mu.Unlock()
		close(s.quit)
	}
}

// SetAbandon lets gen exit hardStop after a signal if the run has not
// ended by then, with the status abandon returns after saying what it must.
// A run that sets none is waited for.
func (s *Stopper) SetAbandon(abandon func() int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.abandon = abandon
}

// stopHard ends the process unless the run has ended, or asked to be
// waited for.
func (s *Stopper) stopHard(e *Env) {
	s.mu.Lock()
	abandon := s.abandon
	if s.released || abandon == nil {
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	// What abandon says goes to stderr, which may be as stuck as stdout:
	// gen exits all the same, a little later.
	status := make(chan int, 1)
	go func() { status <- abandon() }()
	select {
	case code := <-status:
		e.exit(code)
	case <-time.After(100 * time.Millisecond):
		e.exit(s.Status())
	}
}

// Done returns a channel that is closed when the signal comes.
func (s *Stopper) Done() <-chan struct{} { return s.done }

// Writing reports whether gen is writing its output: a run held up by its
// reader, after a signal, is not waiting for etcd.
func (s *Stopper) Writing() bool { return s.writing.Load() }

// Stopped reports whether the signal has come.
func (s *Stopper) Stopped() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// Status is the exit status for the signal: 128 plus its number, as a
// shell reports a process the signal ended.
func (s *Stopper) Status() int {
	if sig, ok := s.sig.(syscall.Signal); ok {
		return 128 + int(sig)
	}
	return 128 + int(syscall.SIGINT)
}

// Context returns a context that ends after timeout, or etcdGrace after a
// signal, whichever comes first.
func (s *Stopper) Context(timeout time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	go func() {
		select {
		case <-s.etcdExpired:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}
