package postgres

import (
	"errors"
	"testing"

	"github.com/einoplan/plan/backends/backendtest"
)

// TestWithExistingSchemaCreatesNothing: opening a schema that does not exist with
// WithExistingSchema fails with ErrNoSchema naming it and leaves no schema behind; a
// schema New created opens and shows its files.
func TestWithExistingSchemaCreatesNothing(t *testing.T) {
	requireServer(t)
	pool := newPool(t, serverURL, 0)
	schema := testSchema()
	t.Cleanup(func() { dropSchema(serverURL, schema) })
	_, err := New(bg, pool, WithSchema(schema), WithExistingSchema())
	if !errors.Is(err, ErrNoSchema) {
		t.Fatalf("New = %v, want ErrNoSchema", err)
	}
	var n int
	if err := pool.QueryRow(bg, `SELECT count(*) FROM pg_namespace WHERE nspname = $1`, schema).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("schema %s was created", schema)
	}

	b := newBackend(t)
	backendtest.MustWrite(t, b, "/p/a.md", "kept")
	existing, err := New(bg, pool, WithSchema(b.Schema()), WithExistingSchema())
	if err != nil {
		t.Fatal(err)
	}
	if got := backendtest.MustRead(t, existing, "/p/a.md"); got != "kept" {
		t.Fatalf("read %q", got)
	}
}
