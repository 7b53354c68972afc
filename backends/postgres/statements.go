package postgres

import (
	"strings"

	"github.com/jackc/pgx/v5"
)

// statements are the SQL texts of one schema, built once by New. pgx prepares each on a
// connection the first time it runs there and reuses it after, so each call is one round
// trip. Parameters: $1 dir, $2 name; for writes $3 content; for conditional ones $4 (or $3
// for deletes) the SHA-256 of the bytes expected. The server computes size and hash from the
// content (generated columns), so they can never disagree with it, even after an edit made
// with SQL.
type statements struct {
	read, readAtMost, readVersion, list string
	write, writeOnce, create, swap      string
	remove, compareDelete               string
}

// nowMicros is the server's clock in microseconds since the Unix epoch.
const nowMicros = `(extract(epoch FROM clock_timestamp()) * 1000000)::bigint`

func newStatements(schema string) statements {
	q := pgx.Identifier{schema}.Sanitize()
	r := strings.NewReplacer("{S}", q, "{NOW}", nowMicros)
	sub := func(s string) string { return r.Replace(s) }
	insert := `INSERT INTO {S}.files AS f (dir, name, content, mtime, version, once)
	VALUES ($1, $2, $3, {NOW}, nextval('{S}.file_version'), false)`
	upsert := ` ON CONFLICT (dir, name) DO UPDATE SET content = EXCLUDED.content,
	mtime = greatest(EXCLUDED.mtime, f.mtime + 1), version = EXCLUDED.version, once = EXCLUDED.once`
	return statements{
		read:        sub(`SELECT content FROM {S}.files WHERE dir = $1 AND name = $2`),
		readVersion: sub(`SELECT content FROM {S}.files WHERE dir = $1 AND name = $2 AND version = $3`),
		readAtMost:  sub(`SELECT substring(content FROM 1 FOR $3) FROM {S}.files WHERE dir = $1 AND name = $2`),
		// The files of $1, then its subfolders by a loose index scan over the folders below
		// $2 (the child prefix; $3 is the bound above every path that starts with it). Each
		// step moves to the least folder past the current one, skipping the whole subtree of
		// the current child at once, so the walk costs about two index probes per subfolder
		// however many files they hold. A child can be met twice (its own folder, then its
		// subtree, when siblings such as "a-b" sort between them), hence DISTINCT.
		list: sub(`WITH RECURSIVE walk(d) AS (
	SELECT min(dir) FROM {S}.files WHERE dir > $2 AND dir < $3
	UNION ALL
	SELECT least(
		(SELECT min(dir) FROM {S}.files WHERE dir > w.d AND dir < $2 || w.child || '/'),
		(SELECT min(dir) FROM {S}.files WHERE dir >= $2 || w.child || '0' AND dir < $3))
	FROM (SELECT d, split_part(substr(d, char_length($2) + 1), '/', 1) AS child FROM walk WHERE d IS NOT NULL) w
)
SELECT name, size, mtime, version, false FROM {S}.files WHERE dir = $1
UNION ALL
SELECT DISTINCT split_part(substr(d, char_length($2) + 1), '/', 1) COLLATE "C", 0, 0, 0, true
FROM walk WHERE d IS NOT NULL`),
		write: sub(insert + upsert),
		// synchronous_commit is off for this statement's implicit transaction only: the
		// row may be lost if the server crashes within a moment of the write, never torn.
		writeOnce: sub(`INSERT INTO {S}.files AS f (dir, name, content, mtime, version, once)
	SELECT $1, $2, $3, {NOW}, nextval('{S}.file_version'), true
	FROM (SELECT set_config('synchronous_commit', 'off', true)) AS once WHERE true` + upsert),
		create: sub(insert + ` ON CONFLICT (dir, name) DO NOTHING`),
		swap: sub(`UPDATE {S}.files SET content = $3, mtime = greatest({NOW}, mtime + 1),
	version = nextval('{S}.file_version'), once = false WHERE dir = $1 AND name = $2 AND hash = $4`),
		// A file written by WriteOnce is deleted without waiting for the disk, as it was
		// written: synchronous_commit is off for this statement's transaction when the row
		// removed was such a file, and as configured otherwise.
		remove: sub(`WITH gone AS (DELETE FROM {S}.files WHERE dir = $1 AND name = $2 RETURNING once)
SELECT set_config('synchronous_commit',
	CASE WHEN bool_and(once) THEN 'off' ELSE current_setting('synchronous_commit') END, true) FROM gone`),
		compareDelete: sub(`DELETE FROM {S}.files WHERE dir = $1 AND name = $2 AND hash = $3`),
	}
}
