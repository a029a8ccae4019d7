package nodelease

import (
	"errors"
	"strconv"
)

// The errors of this package. Their text carries the prefix of the public
// package, etcdnode, which re-exports them.
var (
	// ErrNoFreeNodeID means every node ID of the realm (or of the range
	// asked for) is held by a live lease.
	ErrNoFreeNodeID = errors.New("etcdnode: no free node ID")
	// ErrLeaseLost means the node stopped minting because its lease could
	// have expired (no keep-alive answered in time), was revoked, or its
	// holder key is no longer its own.
	ErrLeaseLost = errors.New("etcdnode: lease lost")
	// ErrClosed means the node was closed.
	ErrClosed = errors.New("etcdnode: node closed")
	// ErrInvalidOption means a configuration value was rejected; the error
	// is an [*OptionError] that says which and why.
	ErrInvalidOption = errors.New("etcdnode: invalid option")
	// ErrRealmMismatch means the realm under the prefix uses another node ID
	// size than the one asked for, or its record is not one this package
	// wrote.
	ErrRealmMismatch = errors.New("etcdnode: realm node ID size mismatch")
)

// OptionError reports a rejected configuration value. errors.Is(err,
// [ErrInvalidOption]) reports true for it.
type OptionError struct {
	Option string // the option, for example "WithTTL"
	Reason string // what is wrong with its value
}

// Error describes the option and the reason, for example
// `etcdnode: invalid option WithTTL: 1.5s is not a whole number of seconds`.
func (e *OptionError) Error() string {
	return "etcdnode: invalid option " + e.Option + ": " + e.Reason
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
