package postgres

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/einoplan/plan/backends/backendtest"
	"github.com/einoplan/plan/driver"
)

// TestADeadlineCutsAWriteWaitingOnTheServer: a compare-and-swap stuck behind another
// transaction's row lock returns at its context's deadline with an error that leaves the
// outcome open (the statement was sent: not driver.ErrNotWritten), and the server then
// cancels the statement, so once the lock is released nothing was written.
func TestADeadlineCutsAWriteWaitingOnTheServer(t *testing.T) {
	requireServer(t)
	name := "deadline-" + testSchema()
	b := mustNew(t, victimPool(t, name), WithSchema(newBackend(t).Schema()))
	admin := newPool(t, serverURL, 0)
	backendtest.MustWrite(t, b, "/p/f.md", "before")
	tx, err := admin.Begin(bg)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(bg)
	if _, err := tx.Exec(bg, `SELECT 1 FROM `+pgx.Identifier{b.Schema()}.Sanitize()+`.files WHERE name = 'f.md' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(bg, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	ok, err := b.CompareAndSwap(ctx, &driver.WriteRequest{FilePath: "/p/f.md", Content: "after"}, ptr("before"))
	if ok || err == nil || errors.Is(err, driver.ErrNotWritten) {
		t.Fatalf("CompareAndSwap behind a lock = %v, %v; want an error leaving the outcome open", ok, err)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Fatalf("CompareAndSwap returned after %v, its deadline was 200ms", waited)
	}
	waitFor(t, func() bool {
		var waiting int
		admin.QueryRow(bg, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`, name).Scan(&waiting)
		return waiting == 0
	})
	if err := tx.Commit(bg); err != nil {
		t.Fatal(err)
	}
	if got := backendtest.MustRead(t, b, "/p/f.md"); got != "before" {
		t.Fatalf("after the canceled write: %q", got)
	}
}
