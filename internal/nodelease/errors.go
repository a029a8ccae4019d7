package nodelease

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/fastid/scru128/scru64"
)

// The errors of this package. Their texts carry no package prefix: the
// command-line tool, which calls this package directly, puts its own
// first, and package etcdnode, which exports them, dresses every error its
// user sees in a [*PrefixedError] ("etcdnode: lease lost: ...", see
// [Config].ErrorPrefix) and exports each sentinel under its name as a
// *PrefixedError around the one here. The errors of this package match
// both under errors.Is: a sentinel here, and the same sentinel under
// another package's prefix.
//
// Every other error this package returns is one of the typed errors below,
// which carry their context as values, so that a caller with a vocabulary
// of its own (the command-line tool's flags) words the message itself from
// the fields, with errors.As, and never parses the text.
//
// Their texts are safe to print: keys and values from etcd are quoted
// (and cut short past 64 bytes), and text that etcd or anyone between
// chose, inside a wrapped error, is shown with its control characters
// escaped, so that no answer can move a terminal's cursor or recolour it.
var (
	// ErrNoFreeNodeID means every node ID of the realm (or of the range
	// asked for) is held by a live lease.
	ErrNoFreeNodeID error = &sentinel{"no free node ID"}
	// ErrLeaseLost means the node stopped minting before Close: its lease
	// could have expired (no keep-alive answered in time), was revoked or
	// vanished, its holder key is no longer its own, or etcd lost data.
	ErrLeaseLost error = &sentinel{"lease lost"}
	// ErrDataLoss means the node saw etcd lose or rewind data it relies on
	// (see [LostError]). Such an error matches ErrLeaseLost too.
	ErrDataLoss error = &sentinel{"etcd lost or rewound data"}
	// ErrClosed means the node was closed.
	ErrClosed error = &sentinel{"node closed"}
	// ErrInvalidOption means a configuration value was rejected; the error
	// is an [*OptionError] that says which and why.
	ErrInvalidOption error = &sentinel{"invalid option"}
	// ErrRealmMismatch means the realm under the prefix uses another node
	// ID size than the one asked for ([*RealmError]): a choice of the
	// caller's that another prefix resolves.
	ErrRealmMismatch error = &sentinel{"realm mismatch"}
	// ErrBadData means etcd answered data this package did not write and
	// cannot use: a key or value under the prefix of another form, or an
	// answer outside what was asked ([*DataError], [*RecordError]).
	// Unlike ErrRealmMismatch, no option of the caller's resolves it: the
	// keys under the prefix need looking at.
	ErrBadData error = &sentinel{"unexpected data in etcd"}
	// ErrStalled means the node cannot write its continuity record while
	// its lease holds, so that it mints no ID past the bound it last wrote
	// ([*StallError]). The node lives on and mints again once a write
	// succeeds.
	ErrStalled error = &sentinel{"minting stalled"}
)

// sentinel is the type of this package's sentinel errors. A sentinel also
// matches itself under another package's prefix.
type sentinel struct{ text string }

func (e *sentinel) Error() string { return e.text }

// Is reports whether target is e under a prefix (see [PrefixedError]).
func (e *sentinel) Is(target error) bool { return standsFor(target, e) }

// PrefixedError is an error of this package as another package hands it
// to its users: its text is Prefix, ": " and the text of Err, and
// errors.Is and errors.As see Err. A PrefixedError around one of this
// package's sentinels (as etcdnode exports them) is matched under
// errors.Is by every error that matches the sentinel.
type PrefixedError struct {
	Prefix string // the package the user knows, for example "etcdnode"
	Err    error
	// Text, if set, is what the error reads after the prefix instead of
	// Err's text, so that a package whose store is not etcd exports
	// ErrDataLoss in its own words ("pgnode: PostgreSQL lost or rewound
	// data") and still matches the sentinel.
	Text string
}

// Error returns the prefix and Err's text (or Text), for example
// "etcdnode: lease lost".
func (e *PrefixedError) Error() string {
	if e.Text != "" {
		return e.Prefix + ": " + e.Text
	}
	return e.Prefix + ": " + errorText(e.Err)
}

// Unwrap returns Err.
func (e *PrefixedError) Unwrap() error { return e.Err }

// standsFor reports whether target is the sentinel base, itself or under a
// prefix. The typed errors' Is methods use it, so that they match a
// sentinel whichever package's name it is exported under.
func standsFor(target, base error) bool {
	if target == base {
		return true
	}
	p, ok := target.(*PrefixedError)
	return ok && p.Err == base
}

// withPrefix returns err in a [*PrefixedError] with prefix, or err itself
// if prefix or err is empty or err has the prefix already.
func withPrefix(prefix string, err error) error {
	if p, ok := err.(*PrefixedError); prefix == "" || err == nil || ok && p.Prefix == prefix {
		return err
	}
	return &PrefixedError{Prefix: prefix, Err: err}
}

// Field names a [Config] field, or the store, in an [*OptionError]. Each
// caller maps it to the name its user knows: an option of etcdnode, a flag
// of the command-line tool.
type Field int

// The fields an [*OptionError] can name.
const (
	FieldStore      Field = iota + 1 // the Store given to Acquire
	FieldPrefix                      // Config.Prefix
	FieldNodeIDSize                  // Config.NodeIDSize
	FieldTTL                         // Config.TTL
	FieldRange                       // Config.HasRange, MinNodeID and MaxNodeID
)

// String returns the Go name of the field, for example "Config.TTL".
func (f Field) String() string {
	switch f {
	case FieldStore:
		return "Store"
	case FieldPrefix:
		return "Config.Prefix"
	case FieldNodeIDSize:
		return "Config.NodeIDSize"
	case FieldTTL:
		return "Config.TTL"
	case FieldRange:
		return "Config.MinNodeID..MaxNodeID"
	}
	return "Field(" + strconv.Itoa(int(f)) + ")"
}

// OptionError reports a rejected configuration value. errors.Is(err,
// [ErrInvalidOption]) reports true for it.
type OptionError struct {
	Field  Field  // the value rejected
	Option string // the user's name for it, if the caller set one (for example "WithTTL")
	Reason string // what is wrong with it
}

// Error describes the option and the reason, for example
// `invalid option WithTTL: 1.5s is not a whole number of seconds`.
func (e *OptionError) Error() string {
	name := e.Option
	if name == "" {
		name = e.Field.String()
	}
	return "invalid option " + name + ": " + e.Reason
}

// Is reports whether target is [ErrInvalidOption].
func (e *OptionError) Is(target error) bool { return standsFor(target, ErrInvalidOption) }

// RealmError reports that the realm under a prefix uses a node ID size
// other than the one asked for. errors.Is(err, [ErrRealmMismatch]) reports
// true for it.
type RealmError struct {
	Key   string // the key that records the realm's node ID size
	Found string // its value
	Want  uint8  // the node ID size asked for
}

// Error names the key, the size found and the size asked for.
func (e *RealmError) Error() string {
	return "realm node ID size mismatch: " + quote(e.Key) + " holds " +
		quote(e.Found) + ", this node asked for size " + strconv.Itoa(int(e.Want)) +
		" (every node under one prefix must use the same size; use another prefix for another size)"
}

// Is reports whether target is [ErrRealmMismatch].
func (e *RealmError) Is(target error) bool { return standsFor(target, ErrRealmMismatch) }

// RecordError reports a continuity record that is not an ID of its node
// ID: a key this package did not write. errors.Is(err, [ErrBadData])
// reports true for it.
type RecordError struct {
	Key    string // the record's key
	Value  string // what it holds
	NodeID uint32 // the node ID it belongs to
	Size   uint8  // the realm's node ID size
	Err    error  // why it is not that node ID's: a parse error, or nil
	// Store names the store in the text ("unexpected data in
	// PostgreSQL: ..."); empty means etcd (see Config.StoreName).
	Store string
}

// Error names the key, its value and what is wrong with it.
func (e *RecordError) Error() string {
	why := "it is an ID of another node ID"
	if e.Err != nil {
		why = errorText(e.Err)
	}
	return badDataText(e.Store) + ": the continuity record " + quote(e.Key) + " = " + quote(e.Value) +
		" is not an ID of node ID " + strconv.FormatUint(uint64(e.NodeID), 10) + "/" +
		strconv.Itoa(int(e.Size)) + ": " + why
}

// Is reports whether target is [ErrBadData].
func (e *RecordError) Is(target error) bool { return standsFor(target, ErrBadData) }

// Unwrap returns the parse error, if any.
func (e *RecordError) Unwrap() error { return e.Err }

// LostError reports why a node stopped minting before Close. It matches
// [ErrLeaseLost], and [ErrDataLoss] too when DataLoss is set.
type LostError struct {
	NodeID uint32
	Lease  int64
	// Reason says what the node found, for example "no keep-alive was
	// answered within the TTL (10s) minus the safety margin".
	Reason string
	// DataLoss is set when what the node found means that etcd lost or
	// rewound data: IDs minted under other node IDs may repeat, and the
	// whole realm should be checked (see the package doc).
	DataLoss bool
	// Store names the store in the text of a data loss ("PostgreSQL lost
	// or rewound data: ..."); empty means etcd (see Config.StoreName).
	Store string
}

// Error says that the lease was lost (or the store lost data) and why.
func (e *LostError) Error() string {
	what := ErrLeaseLost.Error()
	if e.DataLoss {
		what = ErrDataLoss.Error()
		if e.Store != "" {
			what = e.Store + " lost or rewound data"
		}
	}
	return what + ": node ID " + strconv.FormatUint(uint64(e.NodeID), 10) + ", lease " +
		strconv.FormatInt(e.Lease, 16) + ": " + printable(e.Reason)
}

// Is reports whether target is [ErrLeaseLost], or [ErrDataLoss] for data
// loss.
func (e *LostError) Is(target error) bool {
	return standsFor(target, ErrLeaseLost) || (e.DataLoss && standsFor(target, ErrDataLoss))
}

// StoreError reports a request to etcd that failed: what the node was
// doing, and the Store's error.
type StoreError struct {
	Op  string // what the request was for, for example "renewing lease 3f2a"
	Err error
}

// Error names the step and the cause, with the cause's control characters
// escaped.
func (e *StoreError) Error() string { return e.Op + ": " + errorText(e.Err) }

// Unwrap returns the Store's error.
func (e *StoreError) Unwrap() error { return e.Err }

// RollbackError reports that the clock is more than
// scru64.DefaultRollbackAllowance behind the last ID minted under the node
// ID (by this node, or by an earlier holder whose record it continues), so
// that minting must wait for the clock. It matches scru64.ErrClockRollback.
type RollbackError struct {
	NodeID uint32
	Last   scru64.ID // the ID the stream continues after
	Clock  time.Time // the clock when the error was made
	// Wait is how long until the clock is back within the allowance; a
	// wait past the largest Duration (about 292 years: a record left
	// centuries ahead) is that largest Duration.
	Wait time.Duration
}

// Error says how far behind the clock is and how long the wait is, in
// years where that is two years or more.
func (e *RollbackError) Error() string {
	wait := "minting resumes in " + span(e.Wait.Milliseconds())
	if e.Wait == math.MaxInt64 {
		wait = "too far ahead to wait for"
	}
	return "the clock (" + e.Clock.UTC().Format(time.RFC3339Nano) + ") is " +
		span(e.Last.Time().UnixMilli()-e.Clock.UnixMilli()) + " behind the last ID of node ID " +
		strconv.FormatUint(uint64(e.NodeID), 10) + " (" + e.Last.String() + ", " +
		e.Last.Time().UTC().Format(time.RFC3339Nano) + "): " + wait
}

// span words a span of ms milliseconds as a Duration does, or in years
// (of 365.25 days) from two years on, where a Duration's hours say little
// (and past 292 years cannot be held).
func span(ms int64) string {
	const year = 365.25 * 24 * 3600 * 1000
	if ms >= 2*year || ms <= -2*year {
		return strconv.FormatFloat(float64(ms)/year, 'f', 0, 64) + " years"
	}
	return (time.Duration(ms) * time.Millisecond).String()
}

// Is reports whether target is scru64.ErrClockRollback.
func (e *RollbackError) Is(target error) bool { return target == scru64.ErrClockRollback }

// DataError reports a key or a value that etcd answered and this package
// cannot use: a listed key outside the range asked for, out of order or
// not of the form this package writes, more keys than a listing's limit,
// or a realm key whose value is not a node ID size. errors.Is(err,
// [ErrBadData]) reports true for it.
type DataError struct {
	Key   string // the key, or "" where the answer as a whole is wrong
	Value string // its value, unless KeyOnly
	// KeyOnly is set when the key came from a listing of keys alone, so
	// that it has no value to show.
	KeyOnly bool
	Reason  string // what is wrong with it
	// Store names the store in the text ("unexpected data in
	// PostgreSQL: ..."); empty means etcd (see Config.StoreName).
	Store string
}

// Error names the key and its value, quoted, and what is wrong, for
// example `unexpected data in etcd: "/p/size" = "": not a node ID size
// (1 to 23, in decimal)`.
func (e *DataError) Error() string {
	text := badDataText(e.Store)
	switch {
	case e.Key != "" && !e.KeyOnly:
		text += ": " + quote(e.Key) + " = " + quote(e.Value)
	case e.Key != "":
		text += ": " + quote(e.Key)
	}
	if e.Reason != "" {
		text += ": " + printable(e.Reason)
	}
	return text
}

// badDataText is the text of [ErrBadData] in the words of store (etcd
// if empty).
func badDataText(store string) string {
	if store == "" {
		return ErrBadData.Error()
	}
	return "unexpected data in " + store
}

// Is reports whether target is [ErrBadData].
func (e *DataError) Is(target error) bool { return standsFor(target, ErrBadData) }

// StallError reports that a node cannot write its continuity record while
// its lease holds: it mints no ID past Bound, the record as it last wrote
// it, until a write succeeds, and it keeps trying. errors.Is(err,
// [ErrStalled]) reports true for it, and errors.Is and errors.As see
// through it to the last write's error, and to etcd's answer in it.
type StallError struct {
	NodeID   uint32
	Bound    scru64.ID // the record as last written: no ID above it is minted
	Since    time.Time // when the first write since the last that applied was sent
	Attempts int       // writes sent since the last that applied (the last may be unanswered)
	Err      error     // the last one's: a *StoreError
}

// Error says since when and how often the writes failed, where minting
// stops, and why the last write failed, for example `minting stalled: node
// ID 3 could not write its continuity record (4 attempts since
// 2026-08-05T10:00:00.123Z), so it mints no ID past 0w6s5yrk82rj
// (2026-08-05T10:00:05.376Z): writing the continuity record
// "/scru64/last/0000003": etcdserver: mvcc: database space exceeded`.
func (e *StallError) Error() string {
	return ErrStalled.Error() + ": node ID " + strconv.FormatUint(uint64(e.NodeID), 10) +
		" could not write its continuity record (" + attemptCount(e.Attempts) + " since " +
		e.Since.UTC().Format(rfc3339Milli) + "), so it mints no ID past " + e.Bound.String() + " (" +
		e.Bound.Time().UTC().Format(rfc3339Milli) + "): " + errorText(e.Err)
}

// attemptCount returns "1 attempt" or "n attempts".
func attemptCount(n int) string {
	if n == 1 {
		return "1 attempt"
	}
	return strconv.Itoa(n) + " attempts"
}

// rfc3339Milli is RFC 3339 to the millisecond, as SCRU64 IDs count time.
const rfc3339Milli = "2006-01-02T15:04:05.000Z07:00"

// Is reports whether target is [ErrStalled].
func (e *StallError) Is(target error) bool { return standsFor(target, ErrStalled) }

// Unwrap returns the last write's error.
func (e *StallError) Unwrap() error { return e.Err }

// errorText returns err's text with its control characters escaped, or
// "unknown error" for a nil error, or an empty text, whose place would
// otherwise read "<nil>" or nothing.
func errorText(err error) (text string) {
	defer func() {
		if recover() != nil { // a typed nil, whose method dereferences it
			text = "unknown error"
		}
	}()
	if err == nil {
		return "unknown error"
	}
	if text = printable(err.Error()); text == "" {
		return "unknown error"
	}
	return text
}

// printable returns s with every character that is not printable (control
// characters, formatting characters such as bidirectional overrides, and
// bytes that are not UTF-8) written as a Go escape, and s itself,
// unallocated, when it has none.
func printable(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || !strconv.IsPrint(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError && strconv.IsPrint(r) {
			b.WriteString(s[i : i+size])
		} else {
			q := strconv.QuoteToASCII(s[i : i+size])
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return b.String()
}

// maxQuoted is how many bytes of a key or value from etcd an error
// quotes: enough to recognize it, and no megabyte of text in a message.
const maxQuoted = 64

// quote returns s quoted as strconv.Quote does, cut to its first maxQuoted
// bytes (and the length said) if longer.
func quote(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:maxQuoted]) + "... (" + strconv.Itoa(len(s)) + " bytes)"
}
