// Package postgres stores plans in PostgreSQL, so agents on many machines share one plan
// store. A Backend implements plan.Backend and the driver capabilities that carry the
// Store's guarantees across machines: driver.Swapper (every guarded write is one
// conditional statement, atomic with no lock or lease), driver.KeepingSwapper (a change
// that replaces a plan file keeps the replaced file as its history entry in that same
// statement, copied inside the server, so a change is one round trip and one commit),
// driver.Watcher (a LISTEN/NOTIFY feed, resynced after a lost connection or a server
// restart), driver.OnceWriter (files written once skip the commit's wait for disk),
// driver.LimitedReader and driver.StrictModTimer.
//
// Each file is one row of <schema>.files; any number of plan folders share the table. Every
// call is a single statement in its own implicit transaction: no explicit transaction, no
// table lock, and pgx prepares and caches each statement on every connection. Durability is
// the server's (fsync, synchronous_commit, replication).
package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/driver"
)

// Backend keeps files as rows of one table in a schema of its own. Every mutation is one SQL
// statement, so a file's bytes, size, hash, ModifiedAt and change event move together or
// not at all. It is safe for concurrent use by any number of goroutines, processes and
// machines sharing the same database and schema.
type Backend struct {
	pool         *pgxpool.Pool
	schema       string
	listenConfig *pgx.ConnConfig // WithListenConfig, else nil for the pool's settings
	existingOnly bool            // WithExistingSchema: create and migrate nothing
	sql          statements
}

var (
	_ plan.Backend          = (*Backend)(nil)
	_ driver.Swapper        = (*Backend)(nil)
	_ driver.KeepingSwapper = (*Backend)(nil)
	_ driver.LimitedReader  = (*Backend)(nil)
	_ driver.OnceWriter     = (*Backend)(nil)
	_ driver.StrictModTimer = (*Backend)(nil)
	_ driver.Watcher        = (*Backend)(nil)
)

// New returns a Backend on pool, first creating or migrating its schema (DefaultSchema
// unless WithSchema says otherwise) to SchemaVersion; see README.md for what that creates.
// It refuses a schema a later release migrated (ErrSchemaTooNew); with WithExistingSchema
// it creates and migrates nothing. The pool's own settings decide connection limits and
// timeouts; every call also honours its context. Watching
// opens one connection of its own per feed from the pool's connection settings (or those of
// WithListenConfig), which must reach PostgreSQL in session mode (README.md, PgBouncer).
func New(ctx context.Context, pool *pgxpool.Pool, opts ...Option) (*Backend, error) {
	if pool == nil {
		return nil, errors.New("postgres backend: pool is nil")
	}
	b := &Backend{pool: pool, schema: DefaultSchema}
	for _, o := range opts {
		o(b)
	}
	if err := checkSchemaName(b.schema); err != nil {
		return nil, err
	}
	ensure := ensureSchema
	if b.existingOnly {
		ensure = checkSchema
	}
	if err := ensure(ctx, pool, b.schema); err != nil {
		return nil, err
	}
	b.sql = newStatements(b.schema)
	return b, nil
}

// Schema is the schema the Backend's tables live in.
func (b *Backend) Schema() string { return b.schema }

// StrictModTimes reports that no two writes give one file the same ModifiedAt, so the Store
// may cache a summary the moment it reads it. A row's time in microseconds is the later of
// the server clock and one past its previous time, so it strictly grows while the file
// exists; its nanosecond digits are the write's version modulo 1,000 (versions come from one
// sequence and never repeat), so a file deleted and written again in one microsecond, with
// the server clock stepped back, still reports another ModifiedAt unless exactly a multiple
// of 1,000 writes happened in between.
func (b *Backend) StrictModTimes() bool { return true }

// wrapErr names the operation and the path in err.
func wrapErr(verb, p string, err error) error {
	return fmt.Errorf("postgres backend: %s %s: %w", verb, p, err)
}
