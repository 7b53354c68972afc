package postgres

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/einoplan/plan/api"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/einoplan/plan"
)

// victimPool is a pool whose sessions carry application_name, so another connection can
// find and terminate them.
func victimPool(t *testing.T, name string) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(serverURL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["application_name"] = name
	p, err := pgxpool.NewWithConfig(bg, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// victim is a Store on a pool whose sessions carry application_name name, and an admin pool
// from which to terminate them.
type victim struct {
	name  string
	pool  *pgxpool.Pool
	b     *Backend
	admin *pgxpool.Pool
	s     *plan.Store
}

// newVictim returns a victim on a fresh schema whose Store holds plan planName with content
// at revision 1.
func newVictim(t *testing.T, planName, content string) victim {
	t.Helper()
	requireServer(t)
	v := victim{name: "victim-" + testSchema()}
	v.pool = victimPool(t, v.name)
	v.b = mustNew(t, v.pool, WithSchema(newBackend(t).Schema()))
	v.admin = newPool(t, serverURL, 0)
	var err error
	if v.s, err = plan.NewStore(&plan.StoreConfig{Backend: v.b}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.s.Put(bg, plan.Update{Name: planName, Content: ptr(content)}); err != nil {
		t.Fatal(err)
	}
	return v
}

// terminate ends every session of application name from another connection and returns
// how many it ended.
func terminate(ctx context.Context, admin *pgxpool.Pool, name string) (int, error) {
	var n int
	err := admin.QueryRow(ctx, `SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE application_name = $1 AND pid <> pg_backend_pid()) t`, name).Scan(&n)
	return n, err
}

// TestTerminatedWhileWaitingNeverLosesTheWrite: a guarded write blocked on the plan's row
// (another transaction holds it) has its session terminated. The Store finds out the
// write did not land and makes it again on a fresh connection, so the call ends with the
// right answer: exactly one new revision holding the new content.
func TestTerminatedWhileWaitingNeverLosesTheWrite(t *testing.T) {
	vic := newVictim(t, "p", "before")
	name, b, admin, s := vic.name, vic.b, vic.admin, vic.s

	tx, err := admin.Begin(bg)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(bg)
	if _, err := tx.Exec(bg, `SELECT 1 FROM `+pgx.Identifier{b.Schema()}.Sanitize()+`.files WHERE dir = '/plans' AND name = 'p.md' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.Put(bg, plan.Update{Name: "p", Content: ptr("after"), IfRevision: ptr(int64(1))})
		done <- err
	}()
	waitFor(t, func() bool {
		var waiting int
		admin.QueryRow(bg, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`, name).Scan(&waiting)
		return waiting > 0
	})
	if n, err := terminate(bg, admin, name); err != nil || n == 0 {
		t.Fatalf("terminate: %d sessions, %v", n, err)
	}
	time.Sleep(50 * time.Millisecond)
	if err := tx.Commit(bg); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil && plan.CodeOf(err) != plan.CodeUnknownOutcome {
			t.Fatalf("Put = %v, want success or unknown_outcome", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Put did not return")
	}
	got, err := s.Get(bg, "p")
	if err != nil {
		t.Fatal(err)
	}
	if got.Revision != 2 || got.Content != "after" {
		t.Fatalf("after the terminated write: revision %d, %q; want revision 2, \"after\"", got.Revision, got.Content)
	}
}

// TestTerminatedConnectionsNeverLoseAWriteSilently: 4 goroutines make guarded increments
// while another connection terminates their sessions every few milliseconds. Every call
// ends in success, a retryable error, a conflict or unknown_outcome; the counter then holds
// at least every reported success and at most those plus the unknown outcomes, and equals
// its revision - 1: no write reported done was lost, none reported failed landed, and none
// landed twice. History then shows every kept revision with the counter it held.
func TestTerminatedConnectionsNeverLoseAWriteSilently(t *testing.T) {
	vic := newVictim(t, "n", "0")
	name, admin, s := vic.name, vic.admin, vic.s
	ctx, cancel := context.WithCancel(bg)
	var killed atomic.Int64
	killer := make(chan struct{})
	go func() {
		defer close(killer)
		for ctx.Err() == nil {
			n, _ := terminate(ctx, admin, name)
			killed.Add(int64(n))
			time.Sleep(time.Duration(5+killed.Load()%20) * time.Millisecond)
		}
	}()

	var done, unknown, failed atomic.Int64
	stop := time.Now().Add(8 * time.Second)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for done.Load()+unknown.Load() < 100 && time.Now().Before(stop) {
				p, err := s.Get(bg, "n")
				if err != nil {
					failed.Add(1)
					continue
				}
				var v int
				fmt.Sscan(p.Content, &v)
				_, err = s.Put(bg, plan.Update{Name: "n", Content: ptr(fmt.Sprint(v + 1)), IfRevision: ptr(p.Revision)})
				switch plan.CodeOf(err) {
				case "":
					done.Add(1)
				case plan.CodeUnknownOutcome:
					unknown.Add(1)
				case plan.CodeRevisionConflict, plan.CodeBackendError:
					failed.Add(1)
				default:
					t.Errorf("Put = %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	cancel()
	<-killer

	got, err := s.Get(bg, "n")
	if err != nil {
		t.Fatal(err)
	}
	var v int64
	fmt.Sscan(got.Content, &v)
	t.Logf("%d sessions terminated; %d increments reported done, %d unknown, %d refused or failed; counter %d",
		killed.Load(), done.Load(), unknown.Load(), failed.Load(), v)
	if killed.Load() == 0 {
		t.Fatal("no session was terminated")
	}
	if v < done.Load() || v > done.Load()+unknown.Load() {
		t.Fatalf("counter %d, want between %d done and %d done or unknown", v, done.Load(), done.Load()+unknown.Load())
	}
	if got.Revision != v+1 {
		t.Fatalf("revision %d with counter %d: an increment landed twice or skipped one", got.Revision, v)
	}
	// Each change kept the revision it replaced in its own statement, so no revision that
	// was replaced lacks its history entry, however the sessions died.
	revs, err := s.History(bg, "n")
	if err != nil {
		t.Fatal(err)
	}
	if want := min(got.Revision, api.DefaultHistoryLimit); int64(len(revs)) != want {
		t.Fatalf("History shows %d revisions of %d, want %d", len(revs), got.Revision, want)
	}
	for _, r := range revs {
		old, err := s.GetRevision(bg, "n", r.Revision)
		if err != nil || old.Content != fmt.Sprint(r.Revision-1) {
			t.Fatalf("revision %d = %v, %v; want counter %d", r.Revision, old, err, r.Revision-1)
		}
	}
}

// TestReadsOutliveTerminatedSessions: the server ends every pooled session, the pool still
// holds them as idle, and the next read and list answer from a fresh connection instead of
// failing: a read changes nothing, so running it again is always safe.
func TestReadsOutliveTerminatedSessions(t *testing.T) {
	vic := newVictim(t, "p", "kept")
	name, pool, admin, s := vic.name, vic.pool, vic.admin, vic.s
	var held []*pgxpool.Conn
	for range 3 { // three idle sessions, all to be ended
		c, err := pool.Acquire(bg)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	for _, c := range held {
		c.Release()
	}
	if n, err := terminate(bg, admin, name); err != nil || n < 3 {
		t.Fatalf("terminate: %d sessions, %v", n, err)
	}
	got, err := s.Get(bg, "p")
	if err != nil {
		t.Fatalf("Get after the sessions ended: %v", err)
	}
	if got.Content != "kept" {
		t.Fatalf("Get = %q, want \"kept\"", got.Content)
	}
	if _, err := terminate(bg, admin, name); err != nil {
		t.Fatal(err)
	}
	if list, err := s.ListPage(bg, plan.ListOptions{}); err != nil || len(list.Plans) != 1 {
		t.Fatalf("List after the sessions ended = %v, %v", list, err)
	}
}

// waitFor polls cond for up to 10 seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
