package postgres

import (
	"strings"

	"github.com/jackc/pgx/v5"
)

// statements are the SQL texts of one schema, built once by New. pgx prepares each on a
// connection the first time it runs there and reuses it after, so each call is one round
// trip. Parameters: $1 dir, $2 name; for writes $3 content; for conditional ones $4 (or $3
// for deletes) the SHA-256 of the bytes expected; for swapKeeping $5 and $6 the dir and
// name of the file that keeps the replaced bytes. The server computes size and hash from
// the content (generated columns), so they can never disagree with it, even after an edit
// made with SQL.
type statements struct {
	read, readAtMost, readBack, list string
	write, writeOnce, create, swap   string
	swapKeeping                      string
	remove, compareDelete            string
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
		read: sub(`SELECT content FROM {S}.files WHERE dir = $1 AND name = $2`),
		// What confirms a notification: the row it names (NULLs when there is none) with its
		// version, whether its hash is $3 (the SHA-256 of the content the notification
		// carried, or NULL), and its content when $4 asks for it and the hash is not $3; and
		// whether the session that sent it ($5, its process ID) is live and its role may
		// write the table $6.
		readBack: sub(`SELECT f.version, f.hash IS NOT DISTINCT FROM $3,
	CASE WHEN $4 AND f.hash IS DISTINCT FROM $3 THEN f.content END,
	EXISTS (SELECT FROM pg_stat_get_activity($5::integer) AS a
		WHERE has_table_privilege(a.usesysid, $6::text, 'INSERT, UPDATE, DELETE'))
FROM (SELECT) AS one LEFT JOIN {S}.files AS f ON f.dir = $1 AND f.name = $2`),
		readAtMost: sub(`SELECT substring(content FROM 1 FOR $3) FROM {S}.files WHERE dir = $1 AND name = $2`),
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
		// swap, and when it updated, the bytes it replaced kept at ($5, $6) as a once-written
		// file (WriteOnce's row: once = true, so removing it later does not wait for the
		// disk), all in one statement, so one implicit transaction: both rows commit, with
		// their two NOTIFYs, or neither. The replaced bytes never travel: "prior" reads them in
		// the statement's snapshot, the UPDATE joins it and passes them on through RETURNING,
		// so the INSERT sees a row only when the UPDATE changed one. Under READ COMMITTED a
		// swap that waited for another writer's row lock re-checks hash = $4 on the row that
		// writer committed (the joined "prior" row is kept as read): when it changed, the
		// UPDATE skips it, returns nothing and nothing is kept; when it holds the expected
		// bytes again, those are the bytes "prior" read (same SHA-256), so the kept file is
		// still exactly what the swap replaced. The commit waits for the disk as any swap's
		// does: it carries the plan's new bytes. Rows affected is 1 exactly when it swapped.
		// ("prior", not "old": RETURNING old.* means the replaced row itself from PostgreSQL
		// 18 on.) "WHERE true" keeps ON CONFLICT from parsing as a join's ON.
		swapKeeping: sub(`WITH prior AS (
	SELECT content FROM {S}.files WHERE dir = $1 AND name = $2 AND hash = $4
), swapped AS (
	UPDATE {S}.files AS f SET content = $3, mtime = greatest({NOW}, f.mtime + 1),
		version = nextval('{S}.file_version'), once = false
	FROM prior WHERE f.dir = $1 AND f.name = $2 AND f.hash = $4
	RETURNING prior.content
)
INSERT INTO {S}.files AS f (dir, name, content, mtime, version, once)
SELECT $5, $6, swapped.content, {NOW}, nextval('{S}.file_version'), true FROM swapped WHERE true` + upsert),
		// A file written once (by WriteOnce, or kept by swapKeeping) is deleted without
		// waiting for the disk: synchronous_commit is off for this statement's transaction
		// when the row removed was such a file, and as configured otherwise.
		remove: sub(`WITH gone AS (DELETE FROM {S}.files WHERE dir = $1 AND name = $2 RETURNING once)
SELECT set_config('synchronous_commit',
	CASE WHEN bool_and(once) THEN 'off' ELSE current_setting('synchronous_commit') END, true) FROM gone`),
		compareDelete: sub(`DELETE FROM {S}.files WHERE dir = $1 AND name = $2 AND hash = $3`),
	}
}
