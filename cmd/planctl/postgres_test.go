//go:build unix

package main

import (
	"context"
	"crypto/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan/backends/backendtest"
	"github.com/einoplan/plan/backends/postgres/pgtest"
)

// postgresServer starts a PostgreSQL server for one test (initdb and postgres from
// $PLAN_POSTGRES_BIN, /usr/lib/postgresql/*/bin or PATH), stopped when the test ends, and
// gives the test a schema of its own through $PLAN_POSTGRES_SCHEMA. Without the binaries
// the test skips, or fails under CI=true.
func postgresServer(t *testing.T) string {
	t.Helper()
	srv, err := pgtest.Start()
	backendtest.SkipWithoutServer(t, "PostgreSQL server", err)
	t.Cleanup(srv.Remove)
	t.Setenv("PLAN_POSTGRES_SCHEMA", "planctl_"+strings.ToLower(rand.Text()[:10]))
	t.Setenv("PLAN_REDIS", "")
	return srv.URL()
}

// Every command works on plans kept in PostgreSQL, as on a folder, with the server named by
// $PLAN_POSTGRES or -postgres.
func TestPostgresCommands(t *testing.T) {
	url := postgresServer(t)
	t.Setenv("PLAN_POSTGRES", url)
	file := filepath.Join(t.TempDir(), "ship.md")
	require.NoError(t, os.WriteFile(file, []byte(shipBody), 0o600))
	where := strings.TrimSuffix(strings.TrimPrefix(url, "postgres://postgres@"), "?sslmode=disable") +
		" (schema " + os.Getenv("PLAN_POSTGRES_SCHEMA") + ")"

	r := planctlOK(t, "import", "ship", file)
	assert.Equal(t, "ship: created from "+file+", revision 1, [#####-----] 2/4\n", r.stdout)

	planctlOK(t, "status", "ship", "in-progress", "-rev", "1")
	r = planctl(t, "status", "ship", "stale", "-rev", "1")
	assert.Equal(t, exitConflict, r.code, "a guarded write from an old revision is refused")

	r = planctlOK(t, "show", "ship", "-json")
	assert.Contains(t, r.stdout, `"status": "in-progress"`)
	assert.Contains(t, r.stdout, `"revision": 2`)

	r = planctlOK(t, "log", "ship")
	assert.GreaterOrEqual(t, strings.Count(r.stdout, "\n"), 2, "both kept revisions are listed: %s", r.stdout)

	planctlOK(t, "rm", "ship", "-rev", "2")
	r = planctlOK(t, "list")
	assert.Equal(t, "No plans in postgres://"+where+" /plans\n", r.stdout)

	t.Run("flag", func(t *testing.T) {
		t.Setenv("PLAN_POSTGRES", "")
		r := planctl(t, "-postgres", url, "list")
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Equal(t, "No plans in postgres://"+where+" /plans\n", r.stdout)
		r = planctl(t, "-postgres", url, "-redis", "redis://localhost:6379/0", "list")
		assert.Equal(t, exitUsage, r.code, r.stderr)
	})
}

// A read-only command on a schema that does not exist (a mistyped $PLAN_POSTGRES_SCHEMA)
// fails naming the server and the schema, and creates nothing.
func TestPostgresReadOnlyCommandsCreateNoSchema(t *testing.T) {
	url := postgresServer(t)
	t.Setenv("PLAN_POSTGRES", url)
	schema := os.Getenv("PLAN_POSTGRES_SCHEMA")
	where := strings.TrimSuffix(strings.TrimPrefix(url, "postgres://postgres@"), "?sslmode=disable")
	for _, args := range [][]string{{"list"}, {"show", "x"}, {"log", "x"}, {"diff", "x"}, {"export", "x", "-"}, {"watch"}} {
		r := planctl(t, args...)
		assert.Equal(t, exitFailed, r.code, "%v", args)
		assert.Equal(t, "planctl: no plans at postgres://"+where+" (schema "+schema+"): the schema does not exist or has no plan tables, "+
			"and nothing was created; check $PLAN_POSTGRES_SCHEMA\n", r.stderr, "%v", args)
		assert.Empty(t, r.stdout, "%v", args)
	}
	pool, err := pgxpool.New(context.Background(), url)
	require.NoError(t, err)
	defer pool.Close()
	var n int
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_namespace WHERE nspname = $1`, schema).Scan(&n))
	assert.Zero(t, n, "schema %s was created", schema)

	t.Setenv("PLAN_POSTGRES_SCHEMA", "")
	r := planctl(t, "list")
	assert.Equal(t, exitFailed, r.code)
	assert.Equal(t, "planctl: no plans at postgres://"+where+" (schema plan): the schema does not exist or has no plan tables, "+
		"and nothing was created; check $PLAN_POSTGRES_SCHEMA (unset: the default schema)\n", r.stderr)
}

// A server that does not answer is reported as such, with the address, and exit status 1.
func TestPostgresUnreachable(t *testing.T) {
	t.Setenv("PLAN_REDIS", "")
	port, err := pgtest.FreePort()
	require.NoError(t, err)
	t.Setenv("PLAN_POSTGRES", "postgres://postgres@127.0.0.1:"+strconv.Itoa(port)+"/postgres?sslmode=disable&connect_timeout=2")
	wantExit(t, exitFailed, "cannot reach PostgreSQL at postgres://127.0.0.1:"+strconv.Itoa(port)+"/postgres", "list")
}
