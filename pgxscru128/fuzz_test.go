package pgxscru128_test

import (
	"errors"
	"testing"

	"github.com/fastid/scru128/pgxscru128"
	"github.com/jackc/pgx/v5/pgtype"
)

// FuzzTextColumn checks the decoders of text columns, which read the
// forms Register writes without allocating and hand everything else to
// the type's Scan, against the type's Scan given the same text as a
// string, which the fuzz targets of the format packages check against the
// plain reference: the same ID, or errors that match the same sentinel,
// for every format, text type and format code. (A uuid or int8 column
// differs on purpose: its type decides, so digits there are decimal.)
func FuzzTextColumn(f *testing.F) {
	for _, seed := range []string{
		"0372hg16csmsm50l8dikcvukc", "017fee7f-ef41-7e2b-3432-ac2ec553687c", "017fee7fef417e2b3432ac2ec553687c",
		"01ARZ3NDEKTSV4RRFFQ69G5FAV", "0u375nxqh5cq", "00CMXB6TAK4SA", "3774874268538", "0014246757444195114",
		"12345678", "9223372036854775808", "", "-1", "017fee7f-ef41-7e2b-3432-ac2ec553687g",
	} {
		f.Add([]byte(seed))
	}
	m := pgtype.NewMap()
	pgxscru128.Register(m)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range formats {
			format.checkTextDecoders(t, m, data)
		}
	})
}

// The sentinels a decoder's error may match, in the order checked.
func (f *format[T, N]) sentinels() []error {
	return []error{f.errLength, f.errChar, f.errRange, f.errAmbiguous}
}

func (f *format[T, N]) checkTextDecoders(t *testing.T, m *pgtype.Map, data []byte) {
	var want T
	wantErr := f.scan(&want, string(data))
	for _, oid := range []uint32{pgtype.TextOID, pgtype.VarcharOID, pgtype.BPCharOID} {
		for _, code := range []int16{pgtype.TextFormatCode, pgtype.BinaryFormatCode} {
			var got T
			err := m.Scan(oid, code, data, &got)
			same := wantErr == nil && err == nil && got == want
			if wantErr != nil && err != nil {
				for _, sentinel := range f.sentinels() {
					if sentinel != nil && errors.Is(wantErr, sentinel) {
						same = errors.Is(err, sentinel)
						break
					}
				}
			}
			if !same {
				t.Fatalf("%s: %q from OID %d in format %d: %v, %v; Scan gives %v, %v", f.name, data, oid, code, got, err, want, wantErr)
			}
		}
	}
}
