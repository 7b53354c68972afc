package postgres

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// SchemaVersion is the version of the table layout this Backend reads and writes. New
// brings an older schema up to it and refuses a newer one, which a later release wrote.
const SchemaVersion = 1

// migrations[i] takes a schema from version i to version i+1. "{S}" stands for the quoted
// schema name. Each runs in the one transaction New migrates in, so a schema is at one
// version or the next, never between. A released migration is never edited: a change of
// layout is a new entry at the end (see README.md, "Schema and migrations").
var migrations = []string{
	// 0 → 1: the files table, its version sequence and the trigger that announces changes.
	`
CREATE SEQUENCE {S}.file_version AS bigint;
CREATE TABLE {S}.files (
	dir     text COLLATE "C" NOT NULL,
	name    text COLLATE "C" NOT NULL,
	content bytea NOT NULL,
	size    bigint GENERATED ALWAYS AS (octet_length(content)) STORED,
	hash    bytea GENERATED ALWAYS AS (sha256(content)) STORED,
	mtime   bigint NOT NULL,
	version bigint NOT NULL,
	once    boolean NOT NULL,
	PRIMARY KEY (dir, name)
) WITH (fillfactor = 80);
CREATE FUNCTION {S}.announce_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
	r record;
	head text;
	body text;
BEGIN
	IF TG_OP = 'DELETE' THEN
		r := OLD;
		head := 'd';
	ELSE
		r := NEW;
		head := 'W';
	END IF;
	head := head || ' ' || r.version || ' ' || octet_length(r.name) || ' ' || r.name;
	IF TG_OP <> 'DELETE' AND r.size <= 4096 THEN
		body := 'w' || substr(head, 2) || encode(r.content, 'base64');
		IF octet_length(body) <= 7900 THEN
			head := body;
		END IF;
	END IF;
	PERFORM pg_notify('plan_' || left(encode(sha256(convert_to(TG_TABLE_SCHEMA || ':' || r.dir, 'UTF8')), 'hex'), 40), head);
	RETURN NULL;
END
$fn$;
CREATE TRIGGER files_announce AFTER INSERT OR UPDATE OR DELETE ON {S}.files
	FOR EACH ROW EXECUTE FUNCTION {S}.announce_change();
`,
}

// ErrSchemaTooNew is wrapped by New's error when the schema was migrated by a later release
// to a version this one does not know: it refuses to touch tables it may misread.
var ErrSchemaTooNew = errors.New("postgres backend: the schema is newer than this release understands")

// ensureSchema brings the schema up to SchemaVersion. A schema already there costs one read
// and takes no lock; otherwise one short transaction, serialised with every other New on
// the same schema by a transaction-scoped advisory lock (never a table lock), creates what
// is missing.
func ensureSchema(ctx context.Context, pool *pgxpool.Pool, schema string) error {
	q := pgx.Identifier{schema}.Sanitize()
	v, err := readVersion(ctx, pool, q)
	if err == nil && v == SchemaVersion {
		return nil
	}
	if err == nil && v > SchemaVersion {
		return fmt.Errorf("%w: schema %s is at version %d, this release knows %d; upgrade the module", ErrSchemaTooNew, schema, v, SchemaVersion)
	}
	if err != nil && !missingRelation(err) {
		return fmt.Errorf("postgres backend: read the schema version of %s: %w", schema, err)
	}
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lockKey(schema)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+q); err != nil {
			return fmt.Errorf("postgres backend: create schema %s: %w", schema, err)
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+q+`.schema_version (version integer NOT NULL)`); err != nil {
			return fmt.Errorf("postgres backend: create %s.schema_version: %w", schema, err)
		}
		v, err := readVersion(ctx, tx, q)
		if err != nil {
			return err
		}
		if v > SchemaVersion {
			return fmt.Errorf("%w: schema %s is at version %d, this release knows %d", ErrSchemaTooNew, schema, v, SchemaVersion)
		}
		for ; v < SchemaVersion; v++ {
			if _, err := tx.Exec(ctx, strings.ReplaceAll(migrations[v], "{S}", q)); err != nil {
				return fmt.Errorf("postgres backend: migrate schema %s from version %d: %w", schema, v, err)
			}
		}
		if _, err := tx.Exec(ctx, `DELETE FROM `+q+`.schema_version`); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO `+q+`.schema_version (version) VALUES ($1)`, SchemaVersion)
		return err
	})
}

// querier is what readVersion needs of a pool or a transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// readVersion returns the schema's version, 0 for an empty schema_version table.
func readVersion(ctx context.Context, q querier, schema string) (int, error) {
	var v *int32
	if err := q.QueryRow(ctx, `SELECT max(version) FROM `+schema+`.schema_version`).Scan(&v); err != nil {
		return 0, err
	}
	if v == nil {
		return 0, nil
	}
	return int(*v), nil
}

// missingRelation reports the error of a query on a schema or table that does not exist.
func missingRelation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "42P01" || pe.Code == "3F000")
}

// lockKey is the advisory lock that serialises migrations of one schema.
func lockKey(schema string) int64 {
	h := fnv.New64a()
	h.Write([]byte("github.com/einoplan/plan/backends/postgres:" + schema))
	return int64(h.Sum64())
}
