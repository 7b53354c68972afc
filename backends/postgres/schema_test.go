package postgres

import (
	"errors"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/backends/backendtest"
)

// TestNewCreatesTheSchemaOnceUnderConcurrentStarts: 8 Backends started at once on a fresh
// schema all succeed, the schema ends at SchemaVersion with one version row, and they
// share their files.
func TestNewCreatesTheSchemaOnceUnderConcurrentStarts(t *testing.T) {
	requireServer(t)
	schema := testSchema()
	t.Cleanup(func() { dropSchema(serverURL, schema) })
	backends := make([]*Backend, 8)
	errs := make([]error, 8)
	var wg sync.WaitGroup
	for i := range backends {
		pool := newPool(t, serverURL, 0)
		wg.Add(1)
		go func() {
			defer wg.Done()
			backends[i], errs[i] = New(bg, pool, WithSchema(schema))
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var rows, version int
	pool := newPool(t, serverURL, 0)
	if err := pool.QueryRow(bg, `SELECT count(*), max(version) FROM `+pgx.Identifier{schema}.Sanitize()+`.schema_version`).Scan(&rows, &version); err != nil {
		t.Fatal(err)
	}
	if rows != 1 || version != SchemaVersion {
		t.Fatalf("schema_version holds %d rows, version %d; want 1 row, version %d", rows, version, SchemaVersion)
	}
	backendtest.MustWrite(t, backends[0], "/p/a.md", "shared")
	if got := backendtest.MustRead(t, backends[7], "/p/a.md"); got != "shared" {
		t.Fatalf("another Backend on the schema read %q", got)
	}
}

// TestNewRefusesASchemaFromALaterRelease: a schema whose version is above SchemaVersion is
// refused with ErrSchemaTooNew and left as it is.
func TestNewRefusesASchemaFromALaterRelease(t *testing.T) {
	b := newBackend(t)
	pool := newPool(t, serverURL, 0)
	if _, err := pool.Exec(bg, `UPDATE `+pgx.Identifier{b.Schema()}.Sanitize()+`.schema_version SET version = $1`, SchemaVersion+1); err != nil {
		t.Fatal(err)
	}
	if _, err := New(bg, pool, WithSchema(b.Schema())); !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("New = %v, want ErrSchemaTooNew", err)
	}
}

// TestNewRefusesUnsafeSchemaNames: names that would need quoting, or exceed 40 bytes, are
// refused before anything is sent.
func TestNewRefusesUnsafeSchemaNames(t *testing.T) {
	requireServer(t)
	pool := newPool(t, serverURL, 0)
	for _, name := range []string{"", "Plan", "a-b", "a;drop", "1abc", "é", "a234567890123456789012345678901234567890x"} {
		if _, err := New(bg, pool, WithSchema(name)); err == nil {
			t.Fatalf("New(WithSchema(%q)) succeeded", name)
		}
	}
	if _, err := New(bg, nil); err == nil {
		t.Fatal("New(nil pool) succeeded")
	}
}

// TestSchemasAreIndependent: two schemas on one database hold different files under the same
// paths, and a Store on each sees only its own plans.
func TestSchemasAreIndependent(t *testing.T) {
	a, b := newBackend(t), newBackend(t)
	backendtest.MustWrite(t, a, "/plans/x.md", "a")
	backendtest.MustWrite(t, b, "/plans/x.md", "b")
	if backendtest.MustRead(t, a, "/plans/x.md") != "a" || backendtest.MustRead(t, b, "/plans/x.md") != "b" {
		t.Fatal("schemas share files")
	}
	s, err := plan.NewStore(&plan.StoreConfig{Backend: a})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(bg, plan.Update{Name: "only-a", Content: ptr("x")}); err != nil {
		t.Fatal(err)
	}
	backendtest.WantLs(t, b, "/plans", "/plans/x.md")
}
