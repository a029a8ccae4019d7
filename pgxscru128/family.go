package pgxscru128

import (
	"fmt"

	"github.com/jackc/pgx/v5/pgtype"
)

// idType is what Register knows of one ID type: the plans the codec it
// puts in place for the type's column (uuid or int8) uses, and the
// wrappers that let pgx's own codecs take the type's slices and, for
// 64-bit IDs, text columns.
type idType interface {
	// pgType returns the PostgreSQL type the ID type maps to, and pgx's
	// codec for it, for a map that has none.
	pgType() (oid uint32, name string, base pgtype.Codec)
	planEncode(format int16, value any) pgtype.EncodePlan
	planScan(format int16, target any) pgtype.ScanPlan
	wrapEncode(value any) (plan pgtype.WrappedEncodePlanNextSetter, next any, ok bool)
	wrapScan(target any) (plan pgtype.WrappedScanPlanNextSetter, next any, ok bool)
	registerDefaults(m *pgtype.Map)
}

// family is one ID type T with its Null type N, and the column that
// stores them. Plans take T, *T, N and *N values (a nil pointer and an
// invalid N are NULL) and scan into *T and *N.
type family[T, N any] struct {
	column[T]
	null        func(N) (T, bool)    // a Null value's ID and whether it is valid
	nullFields  func(*N) (*T, *bool) // the same, to scan into
	errScanNull error                // SQL NULL scanned into a T
}

func (f *family[T, N]) pgType() (uint32, string, pgtype.Codec) { return f.oid, f.typeName, f.base }

// get returns the ID value holds, a T, *T, N or *N, and false for NULL.
func (f *family[T, N]) get(value any) (id T, valid bool) {
	switch v := value.(type) {
	case T:
		return v, true
	case *T:
		if v != nil {
			return *v, true
		}
	case N:
		return f.null(v)
	case *N:
		if v != nil {
			return f.null(*v)
		}
	}
	return id, false
}

func (f *family[T, N]) planEncode(format int16, value any) pgtype.EncodePlan {
	switch value.(type) {
	case T, *T, N, *N:
		return &encodePlan[T, N]{f, f.encode[format]}
	}
	return nil
}

func (f *family[T, N]) planScan(format int16, target any) pgtype.ScanPlan {
	switch target.(type) {
	case *T, *N:
		return &scanPlan[T, N]{f, f.decode[format]}
	}
	return nil
}

// wrapEncode turns slices into arrays pgx's ArrayCodec takes, whose
// elements then come back to planEncode, and for a type with a text form
// for text columns turns a value into a pgtype.Text, which only text-like
// codecs take.
func (f *family[T, N]) wrapEncode(value any) (pgtype.WrappedEncodePlanNextSetter, any, bool) {
	switch value.(type) {
	case []T:
		return &sliceEncodePlan[T]{}, idArray[T](nil), true
	case []N:
		return &sliceEncodePlan[N]{}, idArray[N](nil), true
	case []*T:
		return &pointerSliceEncodePlan[T]{}, pgtype.FlatArray[*T](nil), true
	case T, *T, N, *N:
		if f.text != nil {
			return &textEncodePlan[T, N]{f: f}, pgtype.Text{}, true
		}
	}
	return nil, nil, false
}

func (f *family[T, N]) wrapScan(target any) (pgtype.WrappedScanPlanNextSetter, any, bool) {
	switch target := target.(type) {
	case *[]T:
		return &sliceScanPlan[T]{}, (*pgtype.FlatArray[T])(target), true
	case *[]N:
		return &sliceScanPlan[N]{}, (*pgtype.FlatArray[N])(target), true
	case *[]*T:
		return &sliceScanPlan[*T]{}, (*pgtype.FlatArray[*T])(target), true
	}
	return nil, nil, false
}

// registerDefaults tells m which PostgreSQL type to assume for the
// family's Go types where pgx does not learn a parameter's type
// (QueryExecModeExec, QueryExecModeSimpleProtocol, types m does not know).
func (f *family[T, N]) registerDefaults(m *pgtype.Map) {
	for _, value := range []any{*new(T), (*T)(nil), *new(N), (*N)(nil)} {
		m.RegisterDefaultPgType(value, f.typeName)
	}
	for _, value := range []any{[]T(nil), []N(nil), []*T(nil)} {
		m.RegisterDefaultPgType(value, f.arrayTypeName)
	}
}

// encodePlan encodes a T, *T, N or *N in one format.
type encodePlan[T, N any] struct {
	f      *family[T, N]
	encode func(buf []byte, id T) ([]byte, error)
}

func (p *encodePlan[T, N]) Encode(value any, buf []byte) ([]byte, error) {
	id, valid := p.f.get(value)
	if !valid {
		return nil, nil
	}
	return p.encode(buf, id)
}

// scanPlan scans one format into a *T or *N.
type scanPlan[T, N any] struct {
	f      *family[T, N]
	decode func(dst *T, src []byte) error
}

func (p *scanPlan[T, N]) Scan(src []byte, target any) error {
	switch dst := target.(type) {
	case *T:
		switch {
		case dst == nil:
			return nilTargetError(target)
		case src == nil:
			return p.f.errScanNull
		}
		return p.decode(dst, src)
	case *N:
		if dst == nil {
			return nilTargetError(target)
		}
		id, valid := p.f.nullFields(dst)
		if src == nil {
			var zero T
			*id, *valid = zero, false
			return nil
		}
		// decode leaves *id unchanged on error, and so, with valid, the
		// whole Null value.
		if err := p.decode(id, src); err != nil {
			return err
		}
		*valid = true
		return nil
	}
	return fmt.Errorf("pgxscru128: scan plan used for %T", target)
}

// textEncodePlan hands a 64-bit ID's text form to a text-like codec.
type textEncodePlan[T, N any] struct {
	f    *family[T, N]
	next pgtype.EncodePlan
}

func (p *textEncodePlan[T, N]) SetNext(next pgtype.EncodePlan) { p.next = next }

func (p *textEncodePlan[T, N]) Encode(value any, buf []byte) ([]byte, error) {
	id, valid := p.f.get(value)
	if !valid {
		return nil, nil
	}
	text, err := p.f.text(id)
	if err != nil {
		return nil, err
	}
	return p.next.Encode(pgtype.Text{String: text, Valid: true}, buf)
}

func nilTargetError(target any) error { return fmt.Errorf("%w: %T", ErrNilTarget, target) }
