package pgxscru128

import (
	"errors"

	"github.com/fastid/scru128"
	"github.com/fastid/scru128/legacy"
	"github.com/fastid/scru128/scru64"
	"github.com/fastid/scru128/ulid"
	"github.com/fastid/scru128/ulidflake"
	"github.com/jackc/pgx/v5/pgtype"
)

// ErrNilTarget means a row was scanned into a nil pointer to an ID type, a
// Null type or a slice of them. The error returned wraps it and names the
// type.
var ErrNilTarget = errors.New("pgxscru128: cannot scan into a nil pointer")

// idTypes lists the ID types Register handles, one entry each.
var idTypes = []idType{
	&family[scru128.ID, scru128.NullID]{
		stored: uuidType,
		columns: [2]column[scru128.ID]{
			inOwnType: uuidColumn(scru128.ErrInvalidLength, (*scru128.ID).Scan),
			inText: textColumn(uuidColumn(scru128.ErrInvalidLength, (*scru128.ID).Scan),
				textDecoder128(scru128.ParseBytes, 25, (*scru128.ID).Scan)),
		},
		null:        func(n scru128.NullID) (scru128.ID, bool) { return n.ID, n.Valid },
		nullFields:  func(n *scru128.NullID) (*scru128.ID, *bool) { return &n.ID, &n.Valid },
		errScanNull: scru128.ErrScanNull,
	},
	&family[ulid.ULID, ulid.NullULID]{
		stored: uuidType,
		columns: [2]column[ulid.ULID]{
			inOwnType: uuidColumn(ulid.ErrInvalidLength, (*ulid.ULID).Scan),
			inText: textColumn(uuidColumn(ulid.ErrInvalidLength, (*ulid.ULID).Scan),
				textDecoder128(ulid.ParseBytes, ulid.EncodedSize, (*ulid.ULID).Scan)),
		},
		null:        func(n ulid.NullULID) (ulid.ULID, bool) { return n.ULID, n.Valid },
		nullFields:  func(n *ulid.NullULID) (*ulid.ULID, *bool) { return &n.ULID, &n.Valid },
		errScanNull: ulid.ErrScanNull,
	},
	&family[legacy.ID, legacy.NullID]{
		stored: uuidType,
		columns: [2]column[legacy.ID]{
			inOwnType: uuidColumn(legacy.ErrInvalidLength, (*legacy.ID).Scan),
			inText: textColumn(uuidColumn(legacy.ErrInvalidLength, (*legacy.ID).Scan),
				textDecoder128(legacy.ParseBytes, legacy.EncodedSize, (*legacy.ID).Scan)),
		},
		null:        func(n legacy.NullID) (legacy.ID, bool) { return n.ID, n.Valid },
		nullFields:  func(n *legacy.NullID) (*legacy.ID, *bool) { return &n.ID, &n.Valid },
		errScanNull: legacy.ErrScanNull,
	},
	&family[scru64.ID, scru64.NullID]{
		stored: int8Type,
		columns: [2]column[scru64.ID]{
			inOwnType: int8Column(scru64.Max, scru64.ErrInvalidLength, scru64.ErrOutOfRange, (*scru64.ID).Scan),
			inText: textColumn(int8Column(scru64.Max, scru64.ErrInvalidLength, scru64.ErrOutOfRange, (*scru64.ID).Scan),
				textDecoder64(scru64.Max, scru64.ErrOutOfRange, scru64.ParseBytes, 12, (*scru64.ID).Scan)),
		},
		null:        func(n scru64.NullID) (scru64.ID, bool) { return n.ID, n.Valid },
		nullFields:  func(n *scru64.NullID) (*scru64.ID, *bool) { return &n.ID, &n.Valid },
		errScanNull: scru64.ErrScanNull,
	},
	&family[ulidflake.ID, ulidflake.NullID]{
		stored: int8Type,
		columns: [2]column[ulidflake.ID]{
			inOwnType: int8Column(ulidflake.Max, ulidflake.ErrInvalidLength, ulidflake.ErrOutOfRange, (*ulidflake.ID).Scan),
			inText: textColumn(int8Column(ulidflake.Max, ulidflake.ErrInvalidLength, ulidflake.ErrOutOfRange, (*ulidflake.ID).Scan),
				textDecoder64(ulidflake.Max, ulidflake.ErrOutOfRange, ulidflake.ParseBytes, ulidflake.EncodedSize, (*ulidflake.ID).Scan)),
		},
		null:        func(n ulidflake.NullID) (ulidflake.ID, bool) { return n.ID, n.Valid },
		nullFields:  func(n *ulidflake.NullID) (*ulidflake.ID, *bool) { return &n.ID, &n.Valid },
		errScanNull: ulidflake.ErrScanNull,
	},
}

// Register teaches m the ID types of this module's format packages, so
// that they are bound and scanned without conversion. It replaces the
// codecs of uuid, int8, text, varchar and char (bpchar) on m with codecs
// that handle the ID types themselves and pass every other Go type to the
// codec they replace, and adds a wrapper that turns slices of IDs into
// arrays. See the package documentation for what each type becomes in
// each column and query mode.
//
// Register changes m, so it must run before m is used, and not while
// another goroutine uses m: with a pool, call it in AfterConnect, which
// runs for each new connection before the pool hands it out. Calling it
// again on the same m changes nothing. It needs a map made by
// pgtype.NewMap, as every connection's TypeMap is; it does nothing if m is
// nil or if both m.TryWrapEncodePlanFuncs and m.TryWrapScanPlanFuncs are
// empty, as in a zero pgtype.Map, which pgx cannot use either.
func Register(m *pgtype.Map) {
	if m == nil || len(m.TryWrapEncodePlanFuncs) == 0 && len(m.TryWrapScanPlanFuncs) == 0 {
		return
	}
	if t, ok := m.TypeForOID(pgtype.UUIDOID); ok {
		if _, registered := t.Codec.(*idCodec); registered {
			return
		}
	}
	codecs := map[uint32]*idCodec{}
	add := func(to pgType, kind columnKind, t idType) {
		codec := codecs[to.oid]
		if codec == nil {
			codec = &idCodec{Codec: to.base, kind: kind}
			name := to.name
			if replaced, ok := m.TypeForOID(to.oid); ok {
				codec.Codec, name = replaced.Codec, replaced.Name
			}
			codecs[to.oid] = codec
			m.RegisterType(&pgtype.Type{Name: name, OID: to.oid, Codec: codec})
		}
		codec.types = append(codec.types, t)
	}
	for _, t := range idTypes {
		add(t.storedAs(), inOwnType, t)
		for _, text := range textTypes {
			add(text, inText, t)
		}
		t.registerDefaults(m)
	}
	// First, so that they see the ID types' slices before pgx's own
	// wrappers, which would take them apart with reflection.
	m.TryWrapEncodePlanFuncs = append([]pgtype.TryWrapEncodePlanFunc{tryWrapEncode}, m.TryWrapEncodePlanFuncs...)
	m.TryWrapScanPlanFuncs = append([]pgtype.TryWrapScanPlanFunc{tryWrapScan}, m.TryWrapScanPlanFuncs...)
}

// idCodec is the codec Register puts in place for each type it handles.
// It plans the ID types itself, for the kind of column it stands for, and
// hands every other Go type, and every other method, to the codec it
// replaced.
type idCodec struct {
	pgtype.Codec
	kind  columnKind
	types []idType
}

// PlanEncode returns a plan for an ID type, or the replaced codec's plan.
func (c *idCodec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if format == pgtype.TextFormatCode || format == pgtype.BinaryFormatCode {
		for _, t := range c.types {
			if plan := t.planEncode(c.kind, format, value); plan != nil {
				return plan
			}
		}
	}
	return c.Codec.PlanEncode(m, oid, format, value)
}

// PlanScan returns a plan for a pointer to an ID type, or the replaced
// codec's plan.
func (c *idCodec) PlanScan(m *pgtype.Map, oid uint32, format int16, target any) pgtype.ScanPlan {
	if format == pgtype.TextFormatCode || format == pgtype.BinaryFormatCode {
		for _, t := range c.types {
			if plan := t.planScan(c.kind, format, target); plan != nil {
				return plan
			}
		}
	}
	return c.Codec.PlanScan(m, oid, format, target)
}

func tryWrapEncode(value any) (pgtype.WrappedEncodePlanNextSetter, any, bool) {
	for _, t := range idTypes {
		if plan, next, ok := t.wrapEncode(value); ok {
			return plan, next, true
		}
	}
	return nil, nil, false
}

func tryWrapScan(target any) (pgtype.WrappedScanPlanNextSetter, any, bool) {
	for _, t := range idTypes {
		if plan, next, ok := t.wrapScan(target); ok {
			return plan, next, true
		}
	}
	return nil, nil, false
}
