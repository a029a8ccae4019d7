package pgxscru128

import (
	"encoding/binary"
	"encoding/hex"
	"strconv"

	"github.com/fastid/scru128/internal/interop"
	"github.com/jackc/pgx/v5/pgtype"
)

// column is how the values of one ID type T are stored in one kind of
// PostgreSQL column, in each format.
type column[T any] struct {
	// encode appends id in the format of the index (pgtype.TextFormatCode
	// or pgtype.BinaryFormatCode); decode reads src, which is not NULL,
	// into dst, and leaves dst unchanged on error.
	encode [2]func(buf []byte, id T) ([]byte, error)
	decode [2]func(dst *T, src []byte) error
}

// pgType is a PostgreSQL type Register puts a codec in place for.
type pgType struct {
	oid  uint32
	name string
	// base is pgx's codec for the type, for a map that has none.
	base pgtype.Codec
}

var (
	uuidType = pgType{pgtype.UUIDOID, "uuid", pgtype.UUIDCodec{}}
	int8Type = pgType{pgtype.Int8OID, "int8", pgtype.Int8Codec{}}
	// textTypes hold every ID type's own text.
	textTypes = []pgType{
		{pgtype.TextOID, "text", pgtype.TextCodec{}},
		{pgtype.VarcharOID, "varchar", pgtype.TextCodec{}},
		{pgtype.BPCharOID, "bpchar", pgtype.TextCodec{}},
	}
)

// uuidColumn stores a 128-bit ID as uuid: its 16 bytes in the binary
// format, the hyphenated hexadecimal form in the text format.
//
// Reading text, the form PostgreSQL sends is decoded here; anything else
// goes to scan (the type's Scan method) as a string, so that a column pgx
// does not know (a domain over text, say) holding the ID's own text still
// reads, and bad input fails with the format package's own errors.
func uuidColumn[T ~[16]byte](errLength error, scan func(*T, any) error) column[T] {
	return column[T]{
		encode: [2]func([]byte, T) ([]byte, error){
			pgtype.TextFormatCode:   func(buf []byte, id T) ([]byte, error) { return appendHyphenated(buf, id), nil },
			pgtype.BinaryFormatCode: func(buf []byte, id T) ([]byte, error) { return append(buf, id[:]...), nil },
		},
		decode: [2]func(*T, []byte) error{
			pgtype.TextFormatCode: func(dst *T, src []byte) error {
				if id, ok := parseHyphenated(src); ok {
					*dst = T(id)
					return nil
				}
				return scan(dst, string(src))
			},
			pgtype.BinaryFormatCode: func(dst *T, src []byte) error {
				if len(src) != 16 {
					return errLength
				}
				*dst = T(src)
				return nil
			},
		},
	}
}

// int64ID is a 64-bit ID type: SCRU64 IDs are unsigned, Ulid-Flake IDs
// signed.
type int64ID interface{ ~uint64 | ~int64 }

// int8Column stores a 64-bit ID as int8 (bigint): 8 big-endian bytes in
// the binary format, decimal digits in the text format, padded with zeros
// to 19 (see [appendPadded]), which int8 reads as it reads any decimal.
// A value above
// maxID (for an unsigned type, made by converting a larger integer; for a
// signed one, negative, which converts to above 2^63-1) is errRange both
// ways, as in the type's Value and Scan methods.
//
// Reading text, decimal digits are what PostgreSQL sends for int8;
// anything else goes to scan as a string, as in [uuidColumn].
func int8Column[T int64ID](maxID T, errLength, errRange error, scan func(*T, any) error) column[T] {
	// Both conversions to uint64 put every value that is no ID above
	// maxID: a negative one wraps to 2^63 or more.
	isID := func(id T) bool { return uint64(id) <= uint64(maxID) }
	fromInt64 := func(dst *T, n int64) error {
		if !isID(T(n)) {
			return errRange
		}
		*dst = T(n)
		return nil
	}
	return column[T]{
		encode: [2]func([]byte, T) ([]byte, error){
			pgtype.TextFormatCode: func(buf []byte, id T) ([]byte, error) {
				if !isID(id) {
					return nil, errRange
				}
				return appendPadded(buf, uint64(id)), nil
			},
			pgtype.BinaryFormatCode: func(buf []byte, id T) ([]byte, error) {
				if !isID(id) {
					return nil, errRange
				}
				return binary.BigEndian.AppendUint64(buf, uint64(id)), nil
			},
		},
		decode: [2]func(*T, []byte) error{
			pgtype.TextFormatCode: func(dst *T, src []byte) error {
				n, err := strconv.ParseInt(string(src), 10, 64)
				if err != nil {
					return scan(dst, string(src))
				}
				return fromInt64(dst, n)
			},
			pgtype.BinaryFormatCode: func(dst *T, src []byte) error {
				if len(src) != 8 {
					return errLength
				}
				return fromInt64(dst, int64(binary.BigEndian.Uint64(src)))
			},
		},
	}
}

// textColumn stores an ID in a text column (text, varchar, char, and
// domains over them) in the text form of the ID's own PostgreSQL type, in
// either format (text is the same bytes in both): the hyphenated form of a
// uuid, or the 19 zero-padded digits int8Column writes. That is what an ID
// becomes where pgx does not know a parameter's type (QueryExecModeExec,
// QueryExecModeSimpleProtocol, a domain's parameter), which the server then
// parses as whatever type it needs, uuid, int8 or text: so one column holds
// one form whatever the query mode. decode reads the column.
func textColumn[T any](own column[T], decode func(dst *T, src []byte) error) column[T] {
	encode := own.encode[pgtype.TextFormatCode]
	return column[T]{
		encode: [2]func([]byte, T) ([]byte, error){encode, encode},
		decode: [2]func(*T, []byte) error{decode, decode},
	}
}

// textDecoder128 reads a 128-bit ID from a text column: its own text of
// textLength bytes (which an application may store as a string) and the
// hyphenated form (what textColumn stores) here, without allocating, and
// anything else through scan, the type's Scan method given a string,
// which reads what it reads from a string and fails with the format
// package's own errors.
func textDecoder128[T ~[16]byte](parse func([]byte) (T, error), textLength int, scan func(*T, any) error) func(*T, []byte) error {
	return func(dst *T, src []byte) error {
		switch len(src) {
		case textLength:
			id, err := parse(src)
			if err != nil {
				return err
			}
			*dst = id
			return nil
		case 36:
			if id, ok := parseHyphenated(src); ok {
				*dst = T(id)
				return nil
			}
		}
		return scan(dst, string(src))
	}
}

// textDecoder64 reads a 64-bit ID whose values run from 0 to maxID from a
// text column: its own text of textLength bytes, with a letter, and
// decimal digits of another length (what textColumn stores) here, without
// allocating; anything else, digits of the text form's length among it,
// through scan, the type's Scan method given a string, which decides
// between the two readings such digits have (see the format's Scan).
func textDecoder64[T int64ID](maxID T, errRange error, parse func([]byte) (T, error), textLength int, scan func(*T, any) error) func(*T, []byte) error {
	return func(dst *T, src []byte) error {
		n, digits := interop.Digits(src)
		switch {
		case digits && len(src) != textLength:
			if n > uint64(maxID) {
				return errRange
			}
			*dst = T(n)
			return nil
		case !digits && len(src) == textLength:
			id, err := parse(src)
			if err != nil {
				return err
			}
			*dst = id
			return nil
		}
		return scan(dst, string(src))
	}
}

// appendPadded appends n in decimal, padded with zeros to 19 digits, the
// most an int8 has. Padded, a 64-bit ID's digits have one length, so they
// sort as the IDs do in a text column, and never the 12 or 13 characters
// of the SCRU64 or Ulid-Flake text form, as which Scan would read them.
func appendPadded(buf []byte, n uint64) []byte {
	// n is at most 2^63-1, below 10^19: the 19 digits hold it.
	var digits [19]byte
	for i := len(digits) - 1; i >= 0; i-- {
		digits[i] = byte('0' + n%10)
		n /= 10
	}
	return append(buf, digits[:]...)
}

// appendHyphenated appends the canonical text form of a uuid,
// 01a20ae5-cd8b-ec48-3da7-86bbd79a5a50, which sorts as the bytes do.
func appendHyphenated(buf []byte, id [16]byte) []byte {
	buf = hex.AppendEncode(buf, id[0:4])
	buf = append(buf, '-')
	buf = hex.AppendEncode(buf, id[4:6])
	buf = append(buf, '-')
	buf = hex.AppendEncode(buf, id[6:8])
	buf = append(buf, '-')
	buf = hex.AppendEncode(buf, id[8:10])
	buf = append(buf, '-')
	return hex.AppendEncode(buf, id[10:16])
}

// parseHyphenated decodes the canonical text form of a uuid, as
// PostgreSQL writes it, and reports false for anything else.
func parseHyphenated(src []byte) (id [16]byte, ok bool) {
	if len(src) != 36 || src[8] != '-' || src[13] != '-' || src[18] != '-' || src[23] != '-' {
		return id, false
	}
	for _, group := range [...]struct{ from, to, at int }{{0, 8, 0}, {9, 13, 4}, {14, 18, 6}, {19, 23, 8}, {24, 36, 10}} {
		if _, err := hex.Decode(id[group.at:], src[group.from:group.to]); err != nil {
			return id, false
		}
	}
	return id, true
}
