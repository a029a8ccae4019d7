package pgxscru128

import (
	"encoding/binary"
	"encoding/hex"
	"strconv"

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
// the binary format, decimal digits in the text format. A value above
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
				return strconv.AppendInt(buf, int64(id), 10), nil
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

// textColumn stores an ID as its own text, in either format (text is the
// same bytes in both). appendText is the type's AppendText method, which
// fails with the package's error for a 64-bit value that is no ID.
//
// Reading, the text form of textLength bytes is parsed here; anything
// else goes to scan as a string, which then reads what the type's Scan
// method reads from a string, as without Register.
func textColumn[T any](appendText func(T, []byte) ([]byte, error), parse func([]byte) (T, error),
	textLength int, scan func(*T, any) error) column[T] {
	encode := func(buf []byte, id T) ([]byte, error) {
		buf, err := appendText(id, buf)
		if err != nil {
			return nil, err
		}
		return buf, nil
	}
	decode := func(dst *T, src []byte) error {
		if len(src) != textLength {
			return scan(dst, string(src))
		}
		id, err := parse(src)
		if err != nil {
			return err
		}
		*dst = id
		return nil
	}
	return column[T]{
		encode: [2]func([]byte, T) ([]byte, error){encode, encode},
		decode: [2]func(*T, []byte) error{decode, decode},
	}
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
