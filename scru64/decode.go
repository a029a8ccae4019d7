package scru64

// Base36 decoding with SWAR (SIMD within a register): the 12 characters are
// read as one little-endian 64-bit word of eight and one of four, padded in
// front with four '0' digits, which change neither validity nor value. Each
// word is validated and turned into the value of its digits with a few
// dozen plain integer operations, no per-byte work or table lookups. Twelve
// Base36 digits never exceed 36^12-1, the largest ID, so there is no range
// check: a text of the right length is either an ID or has a bad byte. All
// checks fold into one predictable branch; on failure a plain scan finds the
// first invalid byte, so the error and its offset come out exactly as a
// byte-by-byte parser would report them.

// text is what Parse and ParseBytes accept; the two instantiations compile
// separately, so neither converts its argument.
type text interface{ ~string | ~[]byte }

// Parse parses the 12-digit Base36 text of an ID, ignoring case. It returns
// ErrInvalidLength if s is not 12 bytes long, or an *InvalidCharacterError
// (matching ErrInvalidCharacter) naming the first byte outside [0-9a-zA-Z].
// Every 12-digit text is in range: zzzzzzzzzzzz is Max. It does not
// allocate on success.
func Parse(s string) (ID, error) { return decode(s) }

// ParseBytes is Parse for a byte slice. It does not retain b.
func ParseBytes(b []byte) (ID, error) { return decode(b) }

// MustParse is Parse that panics on error, for constants in code and tests.
func MustParse(s string) ID {
	id, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return id
}

// UnmarshalText parses the 12-digit text form into id, as Parse does. On
// error id is left unchanged.
func (id *ID) UnmarshalText(b []byte) error {
	v, err := decode(b)
	if err != nil {
		return err
	}
	*id = v
	return nil
}

func decode[T text](s T) (ID, error) {
	if len(s) != 12 {
		return 0, ErrInvalidLength
	}
	head := load64(s, 0)
	// "0000" followed by the last four characters.
	tail := '0'*0x01010101 | load32(s, 8)<<32
	// Bytes at or above 0x80 are masked out here, see valid8.
	valid := valid8(head) & valid8(tail) &^ (head | tail)
	if valid&high != high {
		return 0, decodeError(s)
	}
	return ID(value8(head)*radix4 + value8(tail)), nil
}

// load64 returns s[i:i+8] as a little-endian word; the compiler merges the
// byte loads into one, for strings as well as byte slices.
func load64[T text](s T, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// load32 returns s[i:i+4] as a little-endian word in the low half.
func load32[T text](s T, i int) uint64 {
	_ = s[i+3]
	return uint64(uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24)
}

// The SWAR helpers below take eight characters packed little-endian in a
// word, so the first character is in the low byte. ones and high repeat 0x01
// and 0x80 in every byte.
const (
	ones = 0x0101010101010101
	high = 0x8080808080808080
)

// valid8 sets the top bit of each byte of x that is in [0-9a-zA-Z], provided
// the byte is below 0x80; the caller clears the top bit of the others with
// &^ x. The other bits of the result are noise.
//
// For a byte c < 0x80, c + (0x80-k) has its top bit set iff c >= k, and no
// lane carries into the next. With l = c|0x20 (which maps 'A'-'Z' onto 'a'-'z'
// and leaves digits alone), the four tests c >= '0', c > '9', l >= 'a' and
// l > 'z' hold on nested sets of bytes (each implies the one before), so
// their exclusive or holds exactly on the digits and the letters. A lane with
// c >= 0x80 may carry into the next lane, but it fails the &^ x test itself,
// so the word is rejected anyway.
func valid8(x uint64) uint64 {
	lower := x | 0x20*ones
	return (x + (0x80-'0')*ones) ^ (x + (0x80-'9'-1)*ones) ^
		(lower + (0x80-'a')*ones) ^ (lower + (0x80-'z'-1)*ones)
}

// value8 returns the value of the eight valid Base36 digits in x.
func value8(x uint64) uint64 {
	// Digit values: c - '0' for digits, (c|0x20) - 'a' + 10 for letters,
	// which are the valid bytes with bit 6 set. No lane borrows.
	v := (x | 0x20*ones) - '0'*ones - (x>>6&ones)*('a'-10-'0')
	// Pairs in 16-bit lanes, quads in 32-bit lanes, then the octet: each
	// step scales the more significant (lower) half of a lane by the power
	// of 36 its partner spans. The masks come before the multiplications
	// because a pair (up to 1295) does not fit in a byte, nor a quad in 16
	// bits.
	v = (v&0x00ff00ff00ff00ff)*36 + (v >> 8 & 0x00ff00ff00ff00ff)
	v = (v&0x0000ffff0000ffff)*radix2 + (v >> 16 & 0x0000ffff0000ffff)
	return uint64(uint32(v))*radix4 + v>>32
}

// isDigit reports whether c is in [0-9a-zA-Z].
func isDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// decodeError reports the first byte of s outside [0-9a-zA-Z]. It is kept
// out of line so that decode's fast path stays small.
//
//go:noinline
func decodeError[T text](s T) error {
	for i := range len(s) {
		if !isDigit(s[i]) {
			return &InvalidCharacterError{Offset: i, Char: s[i]}
		}
	}
	return ErrInvalidCharacter // not reached: decode's checks are exact, and fuzz tests hold them to it
}
