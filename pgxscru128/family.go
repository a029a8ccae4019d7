package pgxscru128

import (
	"fmt"

	"github.com/jackc/pgx/v5/pgtype"
)

// idType is what Register knows of one ID type: the plans the codecs it
// puts in place use, and the wrappers that let pgx's ArrayCodec take the
// type's slices.
type idType interface {
	// storedAs is the PostgreSQL type the ID type maps to.
	storedAs() pgType
	planEncode(kind columnKind, format int16, value any) pgtype.EncodePlan
	planScan(kind columnKind, format int16, target any) pgtype.ScanPlan
	wrapEncode(value any) (plan pgtype.WrappedEncodePlanNextSetter, next any, ok bool)
	wrapScan(target any) (plan pgtype.WrappedScanPlanNextSetter, next any, ok bool)
	registerDefaults(m *pgtype.Map)
}

// columnKind says which of an ID type's columns a codec stands for.
type columnKind int

const (
	inOwnType columnKind = iota // uuid or int8, as storedAs says
	inText                      // text, varchar, char
)

// family is one ID type T with its Null type N, and the columns that
// store them. Plans take T, *T, N and *N values (a nil pointer and an
// invalid N are NULL) and scan into *T and *N.
type family[T, N any] struct {
	stored      pgType
	columns     [2]column[T]         // by columnKind
	null        func(N) (T, bool)    // a Null value's ID and whether it is valid
	nullFields  func(*N) (*T, *bool) // the same, to scan into
	errScanNull error                // SQL NULL scanned into a T
}

func (f *family[T, N]) storedAs() pgType { return f.stored }

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

func (f *family[T, N]) planEncode(kind columnKind, format int16, value any) pgtype.EncodePlan {
	switch value.(type) {
	case T, *T, N, *N:
		return &encodePlan[T, N]{f, f.columns[kind].encode[format]}
	}
	return nil
}

func (f *family[T, N]) planScan(kind columnKind, format int16, target any) pgtype.ScanPlan {
	switch target.(type) {
	case *T, *N:
		return &scanPlan[T, N]{f, f.columns[kind].decode[format]}
	}
	return nil
}

// wrapEncode turns slices into arrays pgx's ArrayCodec takes, whose
// elements then come back to planEncode.
func (f *family[T, N]) wrapEncode(value any) (pgtype.WrappedEncodePlanNextSetter, any, bool) {
	switch value.(type) {
	case []T:
		return &sliceEncodePlan[T]{}, idArray[T](nil), true
	case []N:
		return &sliceEncodePlan[N]{}, idArray[N](nil), true
	case []*T:
		return &pointerSliceEncodePlan[T]{}, pgtype.FlatArray[*T](nil), true
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
		m.RegisterDefaultPgType(value, f.stored.name)
	}
	for _, value := range []any{[]T(nil), []N(nil), []*T(nil)} {
		m.RegisterDefaultPgType(value, "_"+f.stored.name)
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

func nilTargetError(target any) error { return fmt.Errorf("%w: %T", ErrNilTarget, target) }
