package naive

import (
	"math/big"
	"strings"
)

// The Base32 alphabets of the sibling formats: Crockford's for ULID and
// Ulid-Flake, [0-9A-V] for the legacy 26-digit SCRU128 form.
const (
	CrockfordAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	LegacyAlphabet    = "0123456789ABCDEFGHIJKLMNOPQRSTUV"
)

// Base32Encode returns the big-endian number b as digits base-32 digits of
// alphabet, most significant first, computed with math/big one division at
// a time. It panics if the number needs more digits, as a test bug.
func Base32Encode(b []byte, digits int, alphabet string) string {
	n := new(big.Int).SetBytes(b)
	out := make([]byte, digits)
	rem := new(big.Int)
	for i := digits - 1; i >= 0; i-- {
		n.DivMod(n, big.NewInt(32), rem)
		out[i] = alphabet[rem.Int64()]
	}
	if n.Sign() != 0 {
		panic("naive: value needs more digits")
	}
	return string(out)
}

// Base32Decode parses s as digits base-32 digits of alphabet, ignoring
// case, with math/big. It returns [ErrInvalidLength] if s is not digits bytes
// long, [ErrInvalidCharacter] with the offset of the first byte outside the
// alphabet, or [ErrOutOfRange] if the number is 2^bits or more.
func Base32Decode(s []byte, alphabet string, digits, bits int) (*big.Int, int, error) {
	if len(s) != digits {
		return nil, -1, ErrInvalidLength
	}
	n := new(big.Int)
	for i, c := range s {
		d := strings.IndexByte(alphabet, c)
		if d < 0 && 'a' <= c && c <= 'z' {
			d = strings.IndexByte(alphabet, c-'a'+'A')
		}
		if d < 0 {
			return nil, i, ErrInvalidCharacter
		}
		n.Lsh(n, 5).Or(n, big.NewInt(int64(d)))
	}
	if n.BitLen() > bits {
		return nil, -1, ErrOutOfRange
	}
	return n, -1, nil
}
