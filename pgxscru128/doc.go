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
//   - scru64.ID and ulidflake.ID go to and come from int8 (bigint). An ID
//     out of the format's range (a scru64.ID above scru64.Max, a negative
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
// # Text columns
//
// Where pgx knows that a parameter is text (text, varchar, char: in the
// default QueryExecModeCacheStatement, in the other modes that describe
// statements, and in CopyFrom), an ID goes as its own text
// (0372hg16csmsm50l8dikcvukc), as without Register for the 128-bit types
// and now also for the 64-bit ones, which pgx otherwise refuses for text.
// Scanning a text column reads what the type's Scan method reads from a
// string.
//
// Where pgx does not know a parameter's type, it cannot tell a text column
// from a uuid or int8 one: in QueryExecModeExec and
// QueryExecModeSimpleProtocol, which send every parameter as untyped text,
// and for types the map does not know, such as domains. There an ID goes
// in the text form of uuid or int8 (hyphenated hexadecimal, decimal), which
// uuid and int8 columns need. A text column given it stores that form:
// Scan reads it back, but it sorts apart from IDs stored as their own text.
// In those modes, pass id.String() for a text column.
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
// becomes in a column other than uuid, int8 and text: a plain ID bound to
// bytea still stores its text, as without Register (pass Binary(id)).
package pgxscru128
