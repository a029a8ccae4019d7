package pgxscru128_test

import (
	"testing"

	"github.com/fastid/scru128/pgxscru128"
	"github.com/jackc/pgx/v5/pgtype"
)

// TestAllocations checks that encoding and scanning a value of the ID
// types, in either format, in the ID's PostgreSQL type and in text, does
// not allocate, where without Register scanning does, and that an array in the
// binary format costs the same allocations whatever its length. (pgx
// parses and writes arrays in the text format through a string per
// element, which no codec can avoid.)
func TestAllocations(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage counters allocate")
	}
	forEachFormat(t, func(t *testing.T, f testedFormat) { f.testAllocations(t) })
}

func (f *format[T, N]) testAllocations(t *testing.T) {
	m := pgtype.NewMap()
	pgxscru128.Register(m)
	pgType, _ := m.TypeForName(f.pgType)
	arrayType, _ := m.TypeForName("_" + f.pgType)
	id := f.extremes[1]
	buf := make([]byte, 0, 4096)
	for _, format := range []int16{pgtype.TextFormatCode, pgtype.BinaryFormatCode} {
		for _, oid := range []uint32{pgType.OID, pgtype.TextOID} {
			for _, value := range []any{id, &id, f.null(id, true)} {
				plan := m.PlanEncode(oid, format, value)
				if n := testing.AllocsPerRun(100, func() { _, _ = plan.Encode(value, buf[:0]) }); n != 0 {
					t.Errorf("encoding a %T for OID %d in format %d: %v allocations", value, oid, format, n)
				}
			}
			src, err := m.Encode(oid, format, id, nil)
			if err != nil {
				t.Fatal(err)
			}
			var scanned T
			var scannedNull N
			for _, target := range []any{&scanned, &scannedNull} {
				plan := m.PlanScan(oid, format, target)
				if n := testing.AllocsPerRun(100, func() { _ = plan.Scan(src, target) }); n != 0 {
					t.Errorf("scanning into a %T from OID %d in format %d: %v allocations", target, oid, format, n)
				}
				unregistered := pgtype.NewMap().PlanScan(oid, format, target)
				if n := testing.AllocsPerRun(100, func() { _ = unregistered.Scan(src, target) }); n == 0 {
					t.Errorf("scanning into a %T from OID %d in format %d without Register: no allocations", target, oid, format)
				}
			}
		}

		if format != pgtype.BinaryFormatCode {
			continue
		}
		arrayAllocations := func(length int) (encoding, scanning float64) {
			ids := make([]T, length)
			value := any(ids)
			plan := m.PlanEncode(arrayType.OID, format, value)
			encoding = testing.AllocsPerRun(100, func() { _, _ = plan.Encode(value, buf[:0]) })
			src, err := m.Encode(arrayType.OID, format, ids, nil)
			if err != nil {
				t.Fatal(err)
			}
			var scanned []T
			target := any(&scanned)
			scanPlan := m.PlanScan(arrayType.OID, format, target)
			scanning = testing.AllocsPerRun(100, func() { _ = scanPlan.Scan(src, target) })
			return encoding, scanning
		}
		encodingOne, scanningOne := arrayAllocations(1)
		encodingMany, scanningMany := arrayAllocations(100)
		if encodingMany != encodingOne || scanningMany != scanningOne {
			t.Errorf("arrays: encoding %v allocations for 1 ID, %v for 100; scanning %v and %v",
				encodingOne, encodingMany, scanningOne, scanningMany)
		}
	}
}
