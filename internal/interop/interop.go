// Package interop holds what the five format packages share where IDs meet
// other systems: the Scan methods of the 128-bit and 64-bit ID types, the
// UUID text forms and decimal text they accept, the Null types' logic for
// database/sql and JSON, JSON strings, and the range check of a time.Time. Each format's methods are thin wrappers over
// it, so the five packages accept and reject the same things the same way.
//
// Nothing here is on a minting or encoding hot path; the parsers still
// avoid allocation, because Scan runs once per row.
package interop

import "strconv"

// Errors are one format package's errors, which the helpers return so that
// callers see the package's own sentinels.
type Errors struct {
	Length error // ErrInvalidLength
	Range  error // ErrOutOfRange
	// Char returns the package's *InvalidCharacterError for the byte c at
	// offset.
	Char func(offset int, c byte) error
	// ScanNull is ErrScanNull, for SQL NULL scanned into an ID.
	ScanNull error
	// ScanType is ErrScanType, which [ScanTypeError] wraps.
	ScanType error
	// JSON describes JSON of a kind the ID type does not accept.
	JSON error
}

// CharErrorText is the text of a format's InvalidCharacterError: the
// package name, the byte quoted and in hexadecimal, and its offset, for
// example `scru128: invalid character '_' (0x5f) at offset 10`.
func CharErrorText(pkg string, offset int, c byte) string {
	return pkg + ": invalid character " + strconv.QuoteRune(rune(c)) +
		" (0x" + strconv.FormatUint(uint64(c), 16) + ") at offset " + strconv.Itoa(offset)
}

// text is what the parsers accept; each instantiation compiles separately,
// so neither form is converted.
type text interface{ ~string | ~[]byte }
