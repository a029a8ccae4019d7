package pgnode

import (
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fastid/scru128/internal/nodelease"
)

// StoreOf exposes the Store over db and schema to the tests, which run its
// transactions directly and the protocol's core over it.
func StoreOf(db *pgxpool.Pool, schema string) nodelease.Store { return newStore(db, schema) }

// SchemaSQL is schema.sql as Setup embeds it.
var SchemaSQL = schemaSQL

// EndOfHeader is the line that ends schema.sql's header.
const EndOfHeader = endOfHeader

// SchemaVersion is the digest schema.sql's schema_version answers, and
// SchemaDigest the one it should answer.
var SchemaVersion, SchemaDigest = schemaVersion, schemaDigest(schemaSQL)

// SetupLockKey is the key of Setup's advisory lock for a schema.
var SetupLockKey = setupLockKey
