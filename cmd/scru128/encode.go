package main

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
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
	// wait blocks until mint can go on, or returns errInterrupted when stop
	// is closed first.
	wait(stop <-chan struct{}) error
}

var (
	errWouldWait   = errors.New("minting has to wait")
	errInterrupted = errors.New("interrupted")
)

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

// outputForm is how gen writes an ID: its text, hexadecimal digits or (for
// 128-bit formats) a UUID, in lower case or with -upper in upper case.
type outputForm struct {
	kind  outputKind
	upper bool
}

type outputKind int

const (
	asText outputKind = iota
	asHex
	asUUID
)

// encoder128 returns how gen writes an ID of a 128-bit format whose text
// form text appends. Each format's minter calls the result once per ID, so
// it is the final function: no further layers of closures.
func encoder128[T ~[16]byte](o outputForm, text func([]byte, T) []byte) func([]byte, T) []byte {
	switch o.kind {
	case asHex:
		return func(b []byte, id T) []byte { return appendHex(b, id[:], o.upper) }
	case asUUID:
		return func(b []byte, id T) []byte { return appendUUID(b, [16]byte(id), o.upper) }
	}
	return inCase(o, text)
}

// encoder64 is encoder128 for a 64-bit format; its hexadecimal form is the
// 8 big-endian bytes. It has no UUID form: gen rejects -uuid for it.
func encoder64[T ~uint64 | ~int64](o outputForm, text func([]byte, T) []byte) func([]byte, T) []byte {
	if o.kind == asHex {
		return func(b []byte, id T) []byte {
			var bin [8]byte
			binary.BigEndian.PutUint64(bin[:], uint64(id))
			return appendHex(b, bin[:], o.upper)
		}
	}
	return inCase(o, text)
}

// inCase returns text, or with -upper text followed by upperASCII.
func inCase[T any](o outputForm, text func([]byte, T) []byte) func([]byte, T) []byte {
	if !o.upper {
		return text
	}
	return func(b []byte, id T) []byte {
		start := len(b)
		b = text(b, id)
		upperASCII(b[start:])
		return b
	}
}

func upperASCII(b []byte) {
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - ('a' - 'A')
		}
	}
}

func appendHex(b, src []byte, upper bool) []byte {
	start := len(b)
	b = hex.AppendEncode(b, src)
	if upper {
		upperASCII(b[start:])
	}
	return b
}

// appendUUID appends id as a UUID: 8-4-4-4-12 hexadecimal digits.
func appendUUID(b []byte, id [16]byte, upper bool) []byte {
	b = appendHex(b, id[0:4], upper)
	b = append(b, '-')
	b = appendHex(b, id[4:6], upper)
	b = append(b, '-')
	b = appendHex(b, id[6:8], upper)
	b = append(b, '-')
	b = appendHex(b, id[8:10], upper)
	b = append(b, '-')
	return appendHex(b, id[10:16], upper)
}

func hexString(b []byte) string { return hex.EncodeToString(b) }

func uuidString(id [16]byte) string { return string(appendUUID(nil, id, false)) }

// parseUUIDOrHex reads the 36-character UUID form (8-4-4-4-12) or 32 hex
// digits, in either case. The error names the first bad character and its
// offset.
func parseUUIDOrHex(s string) (id [16]byte, err error) {
	var digits [32]byte
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if len(s) == 36 && (i == 8 || i == 13 || i == 18 || i == 23) {
			if c != '-' {
				return id, &badCharError{c, i, "'-'"}
			}
			continue
		}
		if n == len(digits) || hexValue(c) > 15 {
			return id, &badCharError{c, i, "a hex digit"}
		}
		digits[n] = c
		n++
	}
	if n != len(digits) {
		return id, errors.New("invalid length: want a UUID (8-4-4-4-12) or 32 hex digits")
	}
	_, err = hex.Decode(id[:], digits[:])
	return id, err // nil: every digit was checked
}

func hexValue(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10
	}
	return 0xff
}

type badCharError struct {
	char   byte
	offset int
	want   string
}

func (e *badCharError) Error() string {
	return fmt.Sprintf("invalid character %q at offset %d (want %s)", e.char, e.offset, e.want)
}
