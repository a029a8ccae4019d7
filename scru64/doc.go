// Package scru64 implements SCRU64, compact time-ordered IDs for a realm of
// nodes: a 63-bit integer that fits a signed 64-bit (BIGINT) column, sorts
// by time as an integer and as its 12-digit Base36 text (0u375nxqh5cq), and
// is unique because each generator has a node ID assigned to it.
//
// # SCRU64 or SCRU128
//
// Choose SCRU64 when the ID has to be a 64-bit integer (a BIGINT primary
// key, a compact index, a protocol with a 64-bit field) and you can give
// every running generator a node ID of its own. Choose SCRU128 (the parent
// package) when generators cannot be coordinated: its 128 bits are unique
// by randomness alone, with millisecond timestamps. A SCRU64 timestamp
// counts 256-ms ticks (until the year 4261), and the 24 bits below it are
// shared between node ID and counter, so a node with a node ID of size n
// can mint 2^(24-n) IDs per tick before it borrows from the next one.
//
// # Node IDs
//
// A node spec gives a generator its node ID and node ID size (1 to 23
// bits): "42/8" (decimal), "0xb00/12" (hexadecimal) or "0u2r85hm2pt3/16" (a
// previous ID to continue after, which carries the node ID). Run every
// process that mints IDs with its own, for example SCRU64_NODE_SPEC=42/8 in
// its environment, and [New] and [NewString] use it. Sizes may differ from node
// to node as long as the leading bits of a longer node ID never equal a
// shorter node ID: hot nodes 0x0/4 to 0x7/4 can share a realm with cold
// nodes 0x80/8 to 0xff/8. Two generators with the same node ID at the same
// time will mint duplicates; the random counter start only makes that less
// likely.
//
// # Generating
//
// A [Generator] is safe for concurrent use and lock-free: its state is the
// last ID, one 64-bit word, updated by one compare-and-swap per ID, so IDs
// are strictly increasing across goroutines and nothing allocates. The
// counter starts at a random value at each tick and counts up. When it
// overflows, the timestamp moves one tick ahead of the clock and the
// counter starts again, so bursts never block; the clock is allowed to be
// behind the last ID by up to 10 seconds ([DefaultRollbackAllowance]), which
// also absorbs small clock rollbacks. Beyond that Generate returns
// [ErrClockRollback], GenerateOrSleep (and New) wait for the clock to catch
// up, and [Generator.GenerateOrReset] starts over from the clock at the risk of
// duplicates. The zero Generator has no node spec, and its methods return
// [ErrNoNodeSpec]. The Core forms take the time as an argument, for tests and
// replays.
//
// # Text and storage
//
// [Parse] accepts exactly 12 Base36 digits in either case and reports a
// wrong length with the length received ([*LengthError]) and a bad
// character with its offset ([*InvalidCharacterError]); no decoding
// function panics ([MustParse] aside), on any input. [Validate] checks a
// text without keeping the ID, and [Nil] is the zero ID. Through fmt and
// log/slog an ID and a valid NullID print the text (%x the 8 bytes, %d the
// integer), and an invalid NullID prints null. String and AppendText write lower case; an ID above [Max] (made
// by converting a larger integer) is refused by every encoder with
// [ErrOutOfRange], never written as another ID. In SQL an ID is an int64
// (Value) for a BIGINT column, and Scan reads integers, the 12-digit text,
// decimal text (what SQLite hands back for an integer in a TEXT column) or
// 8 big-endian bytes; [NullID] handles NULL. A value never reads back as
// another ID: no generator mints an ID whose decimal has the 12 characters
// of the text form ([MinTimestamp]). [MinAt], [MaxAt], [MinAtTime] and
// [MaxAtTime] bound range queries by tick. In JSON an ID is the 12-digit
// string, because JavaScript numbers lose precision above 2^53, and a JSON
// integer is also accepted on input.
//
// Unlike the other formats' packages there is no NewAt: an ID is unique
// through its node ID and counter, not through random bits, so an ID for a
// past time can only come from a Generator (see Generator).
package scru64
