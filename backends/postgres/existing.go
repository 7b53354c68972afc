package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrNoSchema is wrapped by New's error, under WithExistingSchema, when the schema does not
// exist or holds no tables at SchemaVersion: nothing was created.
var ErrNoSchema = errors.New("postgres backend: no plan tables in this schema")

// WithExistingSchema makes New open the schema only as it is: it creates nothing and
// migrates nothing, and refuses (ErrNoSchema) a schema that is missing or not yet at
// SchemaVersion, and (ErrSchemaTooNew) one a later release migrated. Read-only tools use it
// so that a mistyped schema name is reported rather than created.
func WithExistingSchema() Option {
	return func(b *Backend) { b.existingOnly = true }
}

// checkSchema is ensureSchema without writing: one read of the schema's version.
func checkSchema(ctx context.Context, pool *pgxpool.Pool, schema string) error {
	v, err := readVersion(ctx, pool, pgx.Identifier{schema}.Sanitize())
	switch {
	case err != nil && missingRelation(err):
		return fmt.Errorf("%w: schema %s does not exist or has no schema_version table", ErrNoSchema, schema)
	case err != nil:
		return fmt.Errorf("postgres backend: read the schema version of %s: %w", schema, err)
	case v > SchemaVersion:
		return fmt.Errorf("%w: schema %s is at version %d, this release knows %d; upgrade the module", ErrSchemaTooNew, schema, v, SchemaVersion)
	case v < SchemaVersion:
		return fmt.Errorf("%w: schema %s is at version %d, not %d; open it once without WithExistingSchema to migrate it", ErrNoSchema, schema, v, SchemaVersion)
	}
	return nil
}
