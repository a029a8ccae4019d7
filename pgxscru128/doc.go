// Package pgxscru128 lets pgx v5 (github.com/jackc/pgx/v5) bind and scan
// the ID types of github.com/fastid/scru128 and its format packages as
// PostgreSQL uuid and int8 values, with no conversion at the call site.
//
// Call [Register] on each connection's type map, for a pool in
// AfterConnect:
//
//	config.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
//		pgxscru128.Register(conn.TypeMap())
//		return nil
//	}
//
// After that, on that connection:
//
//   - scru128.ID, ulid.ULID and legacy.ID go to and come from uuid: 16
//     bytes in the binary format, the hyphenated form
//     (017fee7f-ef41-7e2b-3432-ac2ec553687c) in the text format. A uuid
//     column compares the bytes, so ORDER BY is ID order.
//   - scru64.ID and ulidflake.ID go to and come from int8 (bigint): 8
//     bytes in the binary format, the decimal digits padded with zeros to
//     19 in the text format. An ID out of the format's range (a scru64.ID above scru64.Max, a negative
//     ulidflake.ID, both made by converting an integer) is the format
//     package's ErrOutOfRange, both ways.
//   - The Null types (scru128.NullID, ulid.NullULID, legacy.NullID,
//     scru64.NullID, ulidflake.NullID) and pointers (*scru128.ID, ...)
//     work the same way; an invalid Null value and a nil pointer are NULL.
//     Scanning NULL sets a Null value's Valid to false, and a *scru128.ID
//     scanned into through a **scru128.ID to nil; into a plain ID it is
//     the format package's ErrScanNull.
//   - Slices of the ID types, of their Null types and of pointers to them
//     ([]scru128.ID, []scru128.NullID, []*scru128.ID, ...) go to and come
//     from uuid[] and int8[]; a nil slice is NULL, and a NULL array scans
//     as a nil slice.
//   - Range bounds from MinAt, MaxAt, MinAtTime and MaxAtTime are plain
//     IDs, so they bind as they are: WHERE id BETWEEN $1 AND $2.
//   - pgx.CopyFrom, pgx.Batch, pgx.CollectRows with pgx.RowTo[scru128.ID]
//     and pgx.RowToStructByName take and give IDs like any other query.
//
// Errors from scanning are the format package's own ([scru128.ErrScanNull],
// [scru128.ErrInvalidLength], [scru64.ErrOutOfRange], ...), wrapped by
// pgx, so errors.Is and errors.As find them; a nil pointer as a scan
// target is [ErrNilTarget].
//
// # Text columns: one form in every mode
//
// An ID has one text form wherever pgx sends it as text: the text form of
// its PostgreSQL type, the hyphenated uuid (017fee7f-ef41-7e2b-3432-ac2ec553687c)
// or the integer's decimal digits padded with zeros to 19
// (0014246757444195114 for the Ulid-Flake ID 00CMXB6TAK4SA), which
// int8 reads as it reads any decimal. A text, varchar or char column (or a
// domain over one) therefore holds that form, in every query mode and with
// CopyFrom:
//
//   - where pgx knows the parameter is text (QueryExecModeCacheStatement,
//     the default, QueryExecModeCacheDescribe and
//     QueryExecModeDescribeExec, and CopyFrom, which learn the column's
//     type), because Register gives the text types that form;
//   - where pgx does not know a parameter's type (QueryExecModeExec and
//     QueryExecModeSimpleProtocol, set for PgBouncer without prepared
//     statement support, for instance, and a domain's parameter in any
//     mode), because pgx sends the
//     ID as its PostgreSQL type's text, which the server then parses as
//     the column's type: uuid, int8 or text alike.
//
// So WHERE col = $1 finds every row of an ID however it was stored, and a
// text column sorts as the IDs do (the padding gives a 64-bit ID's digits
// one length). Any other rule breaks in some mode: the ID's own text in a
// text column would have to go as the same untyped text a uuid column
// gets in QueryExecModeExec, which uuid refuses. To store the ID's own text
// (0372hg16csmsm50l8dikcvukc) instead, pass id.String() and compare with
// id.String(): a string is the same text in every mode. A char(n) column
// pads a shorter value with spaces, which scanning refuses: give it the
// form's exact length, 36 or 19.
//
// Scanning a text column reads the ID's own text, the hyphenated form (and
// the other forms the type's Scan method reads from a string) or, for a
// 64-bit ID, decimal digits of any length but the text form's. Digits of
// the text form's length, which a text column can hold from another
// writer (database/sql's Value in QueryExecModeExec or
// QueryExecModeSimpleProtocol stores decimal digits unpadded), read as the
// type's Scan reads them: a Ulid-Flake ID's 13
// digits that are both its text and the decimal of another ID are
// refused with ulidflake.ErrAmbiguous, never read as the wrong one. What
// this package writes never has two readings.
//
// # Without Register
//
// pgx knows nothing of the ID types and uses their database/sql methods,
// whose Value is the ID's text (an int64 for 64-bit IDs). Scanning still
// works, through the types' Scan methods, which pgx hands a uuid as text,
// at the cost of a few allocations per value. Binding does not, for uuid:
// a plain 128-bit ID bound to a uuid parameter fails on the server with
//
//	ERROR: invalid input syntax for type uuid: "0372hg16csmsm50l8dikcvukc" (SQLSTATE 22P02)
//
// a []scru128.ID bound to uuid[] fails in the same way, or, where pgx does
// not know the parameter's type, in pgx with "cannot find encode plan"; and
// scru128.Binary(id), which the binary protocol binds to uuid as 16 bytes,
// goes in QueryExecModeSimpleProtocol and QueryExecModeExec as bytea text
// ("\x017fee7fef417e2b3432ac2ec553687c"), which a uuid column refuses with
// the same error.
//
// # Other types
//
// Register changes nothing for other Go types, the Binary types
// (scru128.Binary, scru128.NullBinary and those of ulid and legacy) among
// them: they store 16 bytes for a bytea column, with or without Register.
// Nor does it change, where pgx knows a parameter's type, what an ID
// becomes in a column other than uuid, int8 and the text types: a plain
// ID bound to bytea still stores its own text, as without Register (pass
// Binary(id)).
package pgxscru128
