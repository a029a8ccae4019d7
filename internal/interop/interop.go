// Package interop holds what the five format packages share where IDs meet
// other systems: the Scan methods of the 128-bit and 64-bit ID types, the
// UUID text forms and decimal text they accept, the Null types' logic for
// database/sql and JSON, JSON strings, the range check of a time.Time, the
// texts of the typed errors, and how IDs print through fmt and log/slog.
// Each format's methods are thin wrappers over it, so the five packages
// accept, reject and print the same things the same way.
//
// Nothing here is on a minting or encoding hot path; the parsers still
// avoid allocation, because Scan runs once per row.
package interop

// Errors are one format package's errors, which the helpers return so that
// callers see the package's own sentinels and typed errors.
type Errors struct {
	// Length returns the package's *LengthError for an input of got
	// bytes met in form.
	Length func(got int, form Form) error
	// Range is the format's *RangeError for a whole value outside its
	// range (it matches ErrOutOfRange): the one naming the largest
	// integer for a 64-bit format, the largest text for a 128-bit one.
	Range error
	// Char returns the package's *InvalidCharacterError for the byte c at
	// offset, which begins the character r of size bytes (as
	// utf8.DecodeRune reports them; see [CharAt]).
	Char func(offset int, c byte, r rune, size int) error
	// ScanNull is ErrScanNull, for SQL NULL scanned into an ID.
	ScanNull error
	// ScanType is ErrScanType, which [ScanTypeError] wraps.
	ScanType error
	// JSON describes JSON of a kind the ID type does not accept.
	JSON error
	// Ambiguous returns a 64-bit format's *AmbiguousError for input of
	// all digits that reads as two IDs: as the binary form (8 bytes) or
	// the text form (binary false), which gives asForm, and as decimal
	// text, which gives asDecimal. Nil for a 128-bit format.
	Ambiguous func(binary bool, asForm, asDecimal uint64) error
}

// text is what the parsers accept; each instantiation compiles separately,
// so neither form is converted.
type text interface{ ~string | ~[]byte }
