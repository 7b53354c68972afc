package postgres

import (
	"context"
	"crypto/rand"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/einoplan/plan/backends/backendtest"
	"github.com/einoplan/plan/backends/postgres/pgtest"
)

// The tests run against a real PostgreSQL server. $PLAN_POSTGRES_URL names one to use;
// otherwise TestMain starts one with pgtest (initdb and postgres from $PLAN_POSTGRES_BIN,
// /usr/lib/postgresql/*/bin or PATH) in a temporary folder on a free loopback port and stops
// it at the end. Without the binaries every test skips, except under CI=true, where a
// missing server is a failure rather than a silent pass. Each test works in a schema of its
// own, dropped when it ends.

// serverURL is the connection string of the shared test server, or "" when there is none.
var serverURL string

// noServer explains why serverURL is empty.
var noServer string

var bg = context.Background()

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	if u := os.Getenv("PLAN_POSTGRES_URL"); u != "" {
		serverURL = u
		return m.Run()
	}
	srv, err := pgtest.Start()
	if err != nil {
		noServer = err.Error()
		return backendtest.RunWithoutServer(m, "PostgreSQL server", err)
	}
	defer srv.Remove()
	serverURL = srv.URL()
	return m.Run()
}

// requireServer skips the test when no server is available (never under CI=true, where
// TestMain has already failed).
func requireServer(t testing.TB) {
	t.Helper()
	if serverURL == "" {
		t.Skipf("no PostgreSQL server: %s (install postgresql or set PLAN_POSTGRES_URL)", noServer)
	}
}

// ownServer starts a server for one test that stops or restarts it. Without the binaries
// the test skips, or fails under CI=true.
func ownServer(t *testing.T) *pgtest.Server {
	t.Helper()
	srv, err := pgtest.Start()
	backendtest.SkipWithoutServer(t, "PostgreSQL server", err)
	t.Cleanup(srv.Remove)
	return srv
}

// newPool returns a pool on url, closed when the test ends.
func newPool(t testing.TB, url string, maxConns int32) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	p, err := pgxpool.NewWithConfig(bg, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// testSchema is a schema name of the test's own.
func testSchema() string {
	return "t_" + strings.ToLower(rand.Text()[:12])
}

// newBackend returns a Backend on the shared server in a schema of its own, dropped when
// the test ends.
func newBackend(t testing.TB) *Backend {
	t.Helper()
	requireServer(t)
	pool := newPool(t, serverURL, 0)
	schema := testSchema()
	t.Cleanup(func() { dropSchema(serverURL, schema) })
	return mustNew(t, pool, WithSchema(schema))
}

// mustNew is New that fails the test on an error.
func mustNew(t testing.TB, pool *pgxpool.Pool, opts ...Option) *Backend {
	t.Helper()
	b, err := New(bg, pool, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// dropSchema removes a test's schema and everything in it.
func dropSchema(url, schema string) {
	ctx, cancel := context.WithTimeout(bg, 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return
	}
	defer conn.Close(ctx)
	conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
}

func ptr[T any](v T) *T { return &v }
