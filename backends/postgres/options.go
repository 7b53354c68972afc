package postgres

import (
	"fmt"
	"regexp"

	"github.com/jackc/pgx/v5"
)

// Option configures a Backend.
type Option func(*Backend)

// DefaultSchema is the schema New keeps its tables in when no WithSchema option is given.
const DefaultSchema = "plan"

// WithSchema names the PostgreSQL schema that holds the Backend's tables, sequence and
// trigger; New creates it when missing. Every Backend given the same database and schema
// sees the same files, and any number of plan folders (BaseDirs) share one schema. The name
// is a lower-case SQL identifier: a letter or underscore, then letters, digits or
// underscores, at most 40 bytes (New refuses anything else rather than quoting it).
func WithSchema(name string) Option {
	return func(b *Backend) { b.schema = name }
}

// schemaName matches the schema names New accepts. 40 bytes keeps every name derived from
// it (sequence, function, channel) below PostgreSQL's 63-byte identifier limit.
var schemaName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,39}$`)

func checkSchemaName(name string) error {
	if !schemaName.MatchString(name) {
		return fmt.Errorf("postgres backend: schema name %q: want a lower-case identifier ([a-z_][a-z0-9_]*, at most 40 bytes)", name)
	}
	return nil
}

// WithListenConfig makes WatchFiles open its connections with cfg instead of the pool's
// connection settings: a feed needs a session of its own for LISTEN, so when the pool goes
// through PgBouncer in transaction mode, point cfg at PostgreSQL itself or at a pooler in
// session mode. cfg is copied for each connection and not changed.
func WithListenConfig(cfg *pgx.ConnConfig) Option {
	return func(b *Backend) { b.listenConfig = cfg }
}
