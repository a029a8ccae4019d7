package main

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
)

// minter makes gen's IDs, one line at a time.
type minter interface {
	// mint appends the next ID, in the output form, to dst. When minting has
	// to wait (a full counter, a clock behind the last ID) it appends
	// nothing and returns errWouldWait: the caller flushes its output, calls
	// wait, then mint again.
	mint(dst []byte) ([]byte, error)
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

	held    T // minted by wait, to be returned by the next mint
	hasHeld bool
}

func (m *idMinter[T]) mint(dst []byte) ([]byte, error) {
	if m.hasHeld {
		m.hasHeld = false
		return m.encode(dst, m.held), nil
	}
	id, err := m.next()
	if err != nil {
		return dst, err
	}
	return m.encode(dst, id), nil
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

// encoder128 returns the encoder of a 128-bit format whose text form text
// appends.
func (o outputForm) encoder128(text func([]byte, [16]byte) []byte) func([]byte, [16]byte) []byte {
	switch o.kind {
	case asHex:
		return func(b []byte, id [16]byte) []byte { return appendHex(b, id[:], o.upper) }
	case asUUID:
		return func(b []byte, id [16]byte) []byte { return appendUUID(b, id, o.upper) }
	}
	return o.textEncoder128(text)
}

func (o outputForm) textEncoder128(text func([]byte, [16]byte) []byte) func([]byte, [16]byte) []byte {
	if !o.upper {
		return text
	}
	return func(b []byte, id [16]byte) []byte {
		start := len(b)
		b = text(b, id)
		upperASCII(b[start:])
		return b
	}
}

// encoder64 is encoder128 for a 64-bit format; its hexadecimal form is the
// 8 big-endian bytes. It has no UUID form: gen rejects -uuid for it.
func (o outputForm) encoder64(text func([]byte, uint64) []byte) func([]byte, uint64) []byte {
	if o.kind == asHex {
		return func(b []byte, id uint64) []byte {
			var bin [8]byte
			binary.BigEndian.PutUint64(bin[:], id)
			return appendHex(b, bin[:], o.upper)
		}
	}
	if !o.upper {
		return text
	}
	return func(b []byte, id uint64) []byte {
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
