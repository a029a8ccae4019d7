package pgxscru128

import "github.com/jackc/pgx/v5/pgtype"

// idArray is a slice of IDs (or Null IDs) as pgx's ArrayCodec encodes it.
// Unlike pgtype.FlatArray, Index hands out a pointer into the slice, which
// fits in an interface as it is, where a copy of a 16-byte ID would be
// allocated for every element.
type idArray[E any] []E

func (a idArray[E]) Dimensions() []pgtype.ArrayDimension {
	if a == nil {
		return nil
	}
	return []pgtype.ArrayDimension{{Length: int32(len(a)), LowerBound: 1}}
}

func (a idArray[E]) Index(i int) any { return &a[i] }

func (a idArray[E]) IndexType() any { return new(E) }

// sliceEncodePlan encodes a []E as an idArray.
type sliceEncodePlan[E any] struct{ next pgtype.EncodePlan }

func (p *sliceEncodePlan[E]) SetNext(next pgtype.EncodePlan) { p.next = next }

func (p *sliceEncodePlan[E]) Encode(value any, buf []byte) ([]byte, error) {
	return p.next.Encode(idArray[E](value.([]E)), buf)
}

// pointerSliceEncodePlan encodes a []*T, whose elements are pointers
// already, as a pgtype.FlatArray; a nil element is NULL.
type pointerSliceEncodePlan[T any] struct{ next pgtype.EncodePlan }

func (p *pointerSliceEncodePlan[T]) SetNext(next pgtype.EncodePlan) { p.next = next }

func (p *pointerSliceEncodePlan[T]) Encode(value any, buf []byte) ([]byte, error) {
	return p.next.Encode(pgtype.FlatArray[*T](value.([]*T)), buf)
}

// sliceScanPlan scans an array into a *[]E through a pgtype.FlatArray,
// whose elements are scanned in place, and a NULL array as a nil slice.
type sliceScanPlan[E any] struct{ next pgtype.ScanPlan }

func (p *sliceScanPlan[E]) SetNext(next pgtype.ScanPlan) { p.next = next }

func (p *sliceScanPlan[E]) Scan(src []byte, target any) error {
	dst := target.(*[]E)
	if dst == nil {
		return nilTargetError(target)
	}
	return p.next.Scan(src, (*pgtype.FlatArray[E])(dst))
}
