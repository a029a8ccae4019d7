package nodelease

import (
	"errors"
	"strconv"
	"time"

	"github.com/fastid/scru128/scru64"
)

// The errors of this package. They are the errors of the public package,
// etcdnode, which re-exports them, and their text carries its prefix. Every
// other error this package returns is one of the typed errors below, which
// carry their context as values, so that a caller with a vocabulary of its
// own (the command-line tool's flags) words the message itself from the
// fields, with errors.As, and never parses the text.
var (
	// ErrNoFreeNodeID means every node ID of the realm (or of the range
	// asked for) is held by a live lease.
	ErrNoFreeNodeID = errors.New("etcdnode: no free node ID")
	// ErrLeaseLost means the node stopped minting before Close: its lease
	// could have expired (no keep-alive answered in time), was revoked or
	// vanished, its holder key is no longer its own, or etcd lost data.
	ErrLeaseLost = errors.New("etcdnode: lease lost")
	// ErrDataLoss means the node saw etcd lose or rewind data it relies on
	// (see [LostError]). Such an error matches ErrLeaseLost too.
	ErrDataLoss = errors.New("etcdnode: etcd lost or rewound data")
	// ErrClosed means the node was closed.
	ErrClosed = errors.New("etcdnode: node closed")
	// ErrInvalidOption means a configuration value was rejected; the error
	// is an [*OptionError] that says which and why.
	ErrInvalidOption = errors.New("etcdnode: invalid option")
	// ErrRealmMismatch means the realm under the prefix is not one this
	// node can join: it uses another node ID size ([*RealmError]), or a
	// continuity record there is not one this package wrote
	// ([*RecordError]).
	ErrRealmMismatch = errors.New("etcdnode: realm mismatch")
)

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
// `etcdnode: invalid option WithTTL: 1.5s is not a whole number of seconds`.
func (e *OptionError) Error() string {
	name := e.Option
	if name == "" {
		name = e.Field.String()
	}
	return "etcdnode: invalid option " + name + ": " + e.Reason
}

// Is reports whether target is [ErrInvalidOption].
func (e *OptionError) Is(target error) bool { return target == ErrInvalidOption }

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
	return "etcdnode: realm node ID size mismatch: " + strconv.Quote(e.Key) + " holds " +
		strconv.Quote(e.Found) + ", this node asked for size " + strconv.Itoa(int(e.Want)) +
		" (every node under one prefix must use the same size; use another prefix for another size)"
}

// Is reports whether target is [ErrRealmMismatch].
func (e *RealmError) Is(target error) bool { return target == ErrRealmMismatch }

// RecordError reports a continuity record that is not an ID of its node
// ID: a key this package did not write. errors.Is(err, [ErrRealmMismatch])
// reports true for it.
type RecordError struct {
	Key    string // the record's key
	Value  string // what it holds
	NodeID uint32 // the node ID it belongs to
	Size   uint8  // the realm's node ID size
	Err    error  // why it is not that node ID's: a parse error, or nil
}

// Error names the key, its value and what is wrong with it.
func (e *RecordError) Error() string {
	why := "it is an ID of another node ID"
	if e.Err != nil {
		why = e.Err.Error()
	}
	return "etcdnode: the continuity record " + strconv.Quote(e.Key) + " = " + strconv.Quote(e.Value) +
		" is not an ID of node ID " + strconv.FormatUint(uint64(e.NodeID), 10) + "/" +
		strconv.Itoa(int(e.Size)) + ": " + why
}

// Is reports whether target is [ErrRealmMismatch].
func (e *RecordError) Is(target error) bool { return target == ErrRealmMismatch }

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
}

// Error says that the lease was lost (or etcd lost data) and why.
func (e *LostError) Error() string {
	what := "etcdnode: lease lost"
	if e.DataLoss {
		what = "etcdnode: etcd lost or rewound data"
	}
	return what + ": node ID " + strconv.FormatUint(uint64(e.NodeID), 10) + ", lease " +
		strconv.FormatInt(e.Lease, 16) + ": " + e.Reason
}

// Is reports whether target is [ErrLeaseLost], or [ErrDataLoss] for data
// loss.
func (e *LostError) Is(target error) bool {
	return target == ErrLeaseLost || (e.DataLoss && target == ErrDataLoss)
}

// StoreError reports a request to etcd that failed: what the node was
// doing, and the Store's error.
type StoreError struct {
	Op  string // what the request was for, for example "renewing lease 3f2a"
	Err error
}

// Error names the step and the cause.
func (e *StoreError) Error() string { return "etcdnode: " + e.Op + ": " + e.Err.Error() }

// Unwrap returns the Store's error.
func (e *StoreError) Unwrap() error { return e.Err }

// RollbackError reports that the clock is more than
// scru64.DefaultRollbackAllowance behind the last ID minted under the node
// ID (by this node, or by an earlier holder whose record it continues), so
// that minting must wait for the clock. It matches scru64.ErrClockRollback.
type RollbackError struct {
	NodeID uint32
	Last   scru64.ID     // the ID the stream continues after
	Clock  time.Time     // the clock when the error was made
	Wait   time.Duration // until the clock is back within the allowance
}

// Error says how far behind the clock is and how long the wait is.
func (e *RollbackError) Error() string {
	return "etcdnode: the clock (" + e.Clock.UTC().Format(time.RFC3339Nano) + ") is " +
		e.Last.Time().Sub(e.Clock).Round(time.Millisecond).String() + " behind the last ID of node ID " +
		strconv.FormatUint(uint64(e.NodeID), 10) + " (" + e.Last.String() + ", " +
		e.Last.Time().UTC().Format(time.RFC3339Nano) + "): minting resumes in " +
		e.Wait.Round(time.Millisecond).String()
}

// Is reports whether target is scru64.ErrClockRollback.
func (e *RollbackError) Is(target error) bool { return target == scru64.ErrClockRollback }
