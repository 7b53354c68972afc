package postgres

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/backends/backendtest"
	"github.com/einoplan/plan/driver"
)

// rowFlags returns a file's once flag and version as stored.
func rowFlags(t *testing.T, b *Backend, dir, name string) (once bool, version int64) {
	t.Helper()
	err := b.pool.QueryRow(bg, `SELECT once, version FROM `+pgx.Identifier{b.Schema()}.Sanitize()+`.files WHERE dir = $1 AND name = $2`,
		dir, name).Scan(&once, &version)
	if err != nil {
		t.Fatalf("row %s/%s: %v", dir, name, err)
	}
	return once, version
}

// TestKeepingSwapKeepsExactlyTheReplacedBytes: a keeping swap replaces the file and keeps
// the bytes it replaced, byte for byte (past the first megabyte, NUL bytes, invalid UTF-8),
// as a once-written file in a folder of its own; a refused swap, a create and a keep path
// that cannot be stored write nothing at all.
func TestKeepingSwapKeepsExactlyTheReplacedBytes(t *testing.T) {
	b := newBackend(t)
	big := strings.Repeat("\x00\xff\r\n--- é ", 95_000) // ~1 MiB, stored out of line (TOAST)
	const p, keep = "/plans/f.md", "/plans/.history/f/1.0badf00d"
	if ok, err := b.CompareAndSwapKeeping(bg, &driver.WriteRequest{FilePath: p, Content: big}, nil, keep); !ok || err != nil {
		t.Fatalf("create = %v, %v", ok, err)
	}
	backendtest.WantMissing(t, b, keep) // a create replaces nothing, so keeps nothing
	if ok, err := b.CompareAndSwapKeeping(bg, &driver.WriteRequest{FilePath: p, Content: "lost"}, nil, keep); ok || err != nil {
		t.Fatalf("create over an existing file = %v, %v", ok, err)
	}
	_, before := rowFlags(t, b, "/plans", "f.md")
	for _, old := range []string{big[:len(big)-1] + "x", big + "\x00", ""} {
		if ok, err := b.CompareAndSwapKeeping(bg, &driver.WriteRequest{FilePath: p, Content: "lost"}, &old, keep); ok || err != nil {
			t.Fatalf("swap from %d other bytes = %v, %v", len(old), ok, err)
		}
	}
	if _, v := rowFlags(t, b, "/plans", "f.md"); v != before {
		t.Fatalf("a refused swap touched the file: version %d, was %d", v, before)
	}
	backendtest.WantMissing(t, b, keep)
	backendtest.WantLs(t, b, "/plans", "/plans/f.md") // not even the keep's folder

	for _, bad := range []string{"/", "/plans/.history/f/a\x00b", "/plans/.history/\xff/1.x", p, "plans//f.md"} {
		ok, err := b.CompareAndSwapKeeping(bg, &driver.WriteRequest{FilePath: p, Content: "lost"}, &big, bad)
		if ok || !errors.Is(err, fs.ErrInvalid) || !errors.Is(err, driver.ErrNotWritten) {
			t.Fatalf("keep at %q = %v, %v; want fs.ErrInvalid and driver.ErrNotWritten", bad, ok, err)
		}
	}

	if ok, err := b.CompareAndSwapKeeping(bg, &driver.WriteRequest{FilePath: p, Content: "two"}, &big, keep); !ok || err != nil {
		t.Fatalf("swap from the stored bytes = %v, %v", ok, err)
	}
	if got := backendtest.MustRead(t, b, p); got != "two" {
		t.Fatalf("file after the swap: %d bytes", len(got))
	}
	if got := backendtest.MustRead(t, b, keep); got != big {
		t.Fatalf("kept %d bytes, want the %d replaced", len(got), len(big))
	}
	planOnce, planVersion := rowFlags(t, b, "/plans", "f.md")
	keptOnce, keptVersion := rowFlags(t, b, "/plans/.history/f", "1.0badf00d")
	if planOnce || !keptOnce {
		t.Fatalf("once flags: file %v, kept %v; want false, true (the kept file is written once)", planOnce, keptOnce)
	}
	if planVersion == before || keptVersion == planVersion {
		t.Fatalf("versions: file %d (was %d), kept %d; want each write a version of its own", planVersion, before, keptVersion)
	}
	backendtest.WantLs(t, b, "/plans", "/plans/.history/", "/plans/f.md")
	backendtest.WantLs(t, b, "/plans/.history/f", keep)

	// A keep name that already holds a file is replaced, as WriteOnce replaces it.
	if ok, err := b.CompareAndSwapKeeping(bg, &driver.WriteRequest{FilePath: p, Content: "three"}, ptr("two"), keep); !ok || err != nil {
		t.Fatalf("swap keeping onto an existing file = %v, %v", ok, err)
	}
	if got := backendtest.MustRead(t, b, keep); got != "two" {
		t.Fatalf("kept %q, want \"two\"", got)
	}
	// Removing the kept file is removing a once-written file.
	backendtest.MustDelete(t, b, keep)
	backendtest.WantLs(t, b, "/plans", "/plans/f.md")
}

// TestKeepingSwapsFromTheSameBytesLeaveOneWinnerAndOneKeptFile: swaps expecting the same
// bytes, each keeping at a name of its own, all wait on the file's row while another
// transaction holds it, so each re-checks the row that transaction leaves (PostgreSQL's
// READ COMMITTED re-evaluation). When it leaves the bytes as they were, or writes the same
// bytes again, exactly one swap wins and exactly one file is kept, holding those bytes; when
// it writes other bytes, none wins and nothing is kept. Then the same swaps race freely,
// many rounds: one winner and one kept file each round.
func TestKeepingSwapsFromTheSameBytesLeaveOneWinnerAndOneKeptFile(t *testing.T) {
	requireServer(t)
	const racers = 8
	app := "keeping-" + testSchema()
	cfg, err := pgxpool.ParseConfig(serverURL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = racers
	cfg.ConnConfig.RuntimeParams["application_name"] = app
	pool, err := pgxpool.NewWithConfig(bg, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	b := mustNew(t, pool, WithSchema(newBackend(t).Schema()))
	admin := newPool(t, serverURL, 0)
	files := pgx.Identifier{b.Schema()}.Sanitize() + ".files"

	// race runs the racers from old on dir/f.md, each keeping at dir/.history/<i>, and
	// returns those that won; waiting, when not nil, runs while they are under way.
	race := func(dir, old string, waiting func()) (wins []int) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		for i := range racers {
			wg.Go(func() {
				req := &driver.WriteRequest{FilePath: dir + "/f.md", Content: fmt.Sprintf("racer %d", i)}
				ok, err := b.CompareAndSwapKeeping(bg, req, &old, fmt.Sprintf("%s/.history/%d", dir, i))
				if err != nil {
					t.Errorf("racer %d: %v", i, err)
				}
				if ok {
					mu.Lock()
					wins = append(wins, i)
					mu.Unlock()
				}
			})
		}
		if waiting != nil {
			waiting()
		}
		wg.Wait()
		return wins
	}
	kept := func(dir string) []driver.FileInfo {
		infos, err := b.LsInfo(bg, &driver.LsInfoRequest{Path: dir + "/.history"})
		if err != nil {
			t.Fatal(err)
		}
		return infos
	}

	for _, tc := range []struct {
		name      string
		holder    string // what the transaction holding the row does with it, "" nothing
		winners   int
		wantAfter string // the file's bytes after, "" for the winner's
	}{
		{"held", "", 1, ""},
		{"rewritten with the same bytes", "old", 1, ""},
		{"rewritten with other bytes", "other", 0, "other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := "/" + strings.ReplaceAll(tc.name, " ", "-")
			backendtest.MustWrite(t, b, dir+"/f.md", "old")
			tx, err := admin.Begin(bg)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(bg)
			lock := `SELECT 1 FROM ` + files + ` WHERE dir = $1 AND name = 'f.md' FOR UPDATE`
			if tc.holder != "" {
				lock = `UPDATE ` + files + ` SET content = '` + tc.holder + `', version = nextval('` + b.Schema() + `.file_version')
					WHERE dir = $1 AND name = 'f.md'`
			}
			if _, err := tx.Exec(bg, lock, dir); err != nil {
				t.Fatal(err)
			}
			wins := race(dir, "old", func() {
				waitFor(t, func() bool {
					var waiting int
					admin.QueryRow(bg, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`, app).Scan(&waiting)
					return waiting == racers
				})
				if err := tx.Commit(bg); err != nil {
					t.Error(err)
				}
			})
			if len(wins) != tc.winners {
				t.Fatalf("winners %v, want %d", wins, tc.winners)
			}
			infos := kept(dir)
			if len(infos) != tc.winners {
				t.Fatalf("kept files %+v, want %d", infos, tc.winners)
			}
			want := tc.wantAfter
			if tc.winners == 1 {
				if infos[0].Path != fmt.Sprintf("%s/.history/%d", dir, wins[0]) {
					t.Fatalf("kept %s, but racer %d won", infos[0].Path, wins[0])
				}
				if got := backendtest.MustRead(t, b, infos[0].Path); got != "old" {
					t.Fatalf("kept %q, want the replaced \"old\"", got)
				}
				want = fmt.Sprintf("racer %d", wins[0])
			}
			if got := backendtest.MustRead(t, b, dir+"/f.md"); got != want {
				t.Fatalf("file holds %q, want %q", got, want)
			}
		})
	}

	t.Run("free race", func(t *testing.T) {
		for round := range 20 {
			dir := fmt.Sprintf("/free/%d", round)
			backendtest.MustWrite(t, b, dir+"/f.md", "old")
			wins := race(dir, "old", nil)
			infos := kept(dir)
			if len(wins) != 1 || len(infos) != 1 || infos[0].Path != fmt.Sprintf("%s/.history/%d", dir, wins[0]) {
				t.Fatalf("round %d: winners %v, kept %+v; want one winner and its kept file", round, wins, infos)
			}
			if got := backendtest.MustRead(t, b, infos[0].Path); got != "old" {
				t.Fatalf("round %d: kept %q", round, got)
			}
		}
	})
}

// TestKeepingSwapAnnouncesBothFiles: a keeping swap is announced on the file's folder with
// its new bytes and on the kept file's folder with the replaced ones; a refused one is not
// announced at all.
func TestKeepingSwapAnnouncesBothFiles(t *testing.T) {
	writer := newBackend(t)
	watcher := mustNew(t, newPool(t, serverURL, 0), WithSchema(writer.Schema()))
	backendtest.MustWrite(t, writer, "/plans/a.md", "one")
	plans := backendtest.MustWatch(t, watcher, "/plans")
	history := backendtest.MustWatch(t, watcher, "/plans/.history/a")
	if ok, err := writer.CompareAndSwapKeeping(bg, &driver.WriteRequest{FilePath: "/plans/a.md", Content: "lost"}, ptr("not it"), "/plans/.history/a/0.x"); ok || err != nil {
		t.Fatalf("refused swap = %v, %v", ok, err)
	}
	large := strings.Repeat("x", 10_000) // read back by version rather than carried
	if ok, err := writer.CompareAndSwapKeeping(bg, &driver.WriteRequest{FilePath: "/plans/a.md", Content: large}, ptr("one"), "/plans/.history/a/1.x"); !ok || err != nil {
		t.Fatalf("swap = %v, %v", ok, err)
	}
	backendtest.WantEvent(t, plans, driver.FileEvent{Path: "/plans/a.md", Content: large})
	backendtest.WantEvent(t, history, driver.FileEvent{Path: "/plans/.history/a/1.x", Content: "one"})
	if ok, err := writer.CompareAndSwapKeeping(bg, &driver.WriteRequest{FilePath: "/plans/a.md", Content: "three"}, &large, "/plans/.history/a/2.x"); !ok || err != nil {
		t.Fatalf("swap = %v, %v", ok, err)
	}
	backendtest.WantEvent(t, plans, driver.FileEvent{Path: "/plans/a.md", Content: "three"})
	backendtest.WantEvent(t, history, driver.FileEvent{Path: "/plans/.history/a/2.x", Content: large})
}

// statementCounter is a pgx tracer that counts the statements a pool runs and the ones it
// prepares first (each a round trip of its own).
type statementCounter struct {
	queries, prepares atomic.Int64
	mu                sync.Mutex
	last              string
}

func (c *statementCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	c.queries.Add(1)
	c.mu.Lock()
	c.last = d.SQL
	c.mu.Unlock()
	return ctx
}

func (c *statementCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (c *statementCounter) TracePrepareStart(ctx context.Context, _ *pgx.Conn, _ pgx.TracePrepareStartData) context.Context {
	c.prepares.Add(1)
	return ctx
}

func (c *statementCounter) TracePrepareEnd(context.Context, *pgx.Conn, pgx.TracePrepareEndData) {}

// countingStore is a Store on a pool of one connection whose statements counter counts,
// holding plan "ship" with body.
func countingStore(t *testing.T, body string) (*plan.Store, *Backend, *statementCounter) {
	t.Helper()
	requireServer(t)
	counter := &statementCounter{}
	cfg, err := pgxpool.ParseConfig(serverURL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 1
	cfg.ConnConfig.Tracer = counter
	pool, err := pgxpool.NewWithConfig(bg, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	b := mustNew(t, pool, WithSchema(newBackend(t).Schema()))
	s, err := plan.NewStore(&plan.StoreConfig{Backend: b, BaseDir: "/plans"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(bg, plan.Update{Name: "ship", Content: &body}); err != nil {
		t.Fatal(err)
	}
	return s, b, counter
}

// oneKeepingSwap fails t unless change runs exactly one statement, b's keeping swap, and
// prepares none.
func oneKeepingSwap(t *testing.T, b *Backend, counter *statementCounter, change func() string) {
	t.Helper()
	q, p := counter.queries.Load(), counter.prepares.Load()
	what := change()
	counter.mu.Lock()
	last := counter.last
	counter.mu.Unlock()
	if dq, dp := counter.queries.Load()-q, counter.prepares.Load()-p; dq != 1 || dp != 0 || last != b.sql.swapKeeping {
		t.Fatalf("%s took %d statements and %d prepares (last %.60q); want the one keeping swap", what, dq, dp, last)
	}
}

// TestAStoreChangeIsOneStatement: on a Store, a status change of an existing plan is one
// statement, so one round trip once pgx has prepared it (no separate write of the history
// entry), and History still shows every revision with its status.
func TestAStoreChangeIsOneStatement(t *testing.T) {
	s, b, counter := countingStore(t, "- [ ] build\n- [ ] test\n")
	if _, err := s.SetStatus(bg, "ship", "status 2", nil); err != nil { // prepares the statement
		t.Fatal(err)
	}
	const changes = 10 // fewer than the revisions between prunes (8 or more)
	for i := range changes {
		oneKeepingSwap(t, b, counter, func() string {
			got, err := s.SetStatus(bg, "ship", fmt.Sprintf("status %d", i+3), nil)
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprintf("revision %d", got.Revision)
		})
	}
	revs, err := s.History(bg, "ship")
	if err != nil {
		t.Fatal(err)
	}
	if len(revs) != changes+2 {
		t.Fatalf("History shows %d revisions, want %d", len(revs), changes+2)
	}
	for i, r := range revs {
		rev := int64(changes + 2 - i)
		want := fmt.Sprintf("status %d", rev)
		if rev == 1 {
			want = "draft"
		}
		if r.Revision != rev || r.Status != want {
			t.Fatalf("History[%d] = revision %d, status %q; want %d, %q", i, r.Revision, r.Status, rev, want)
		}
	}
	infos, err := b.LsInfo(bg, &driver.LsInfoRequest{Path: "/plans/.history/ship"})
	if err != nil || len(infos) != changes+1 {
		t.Fatalf("the history folder holds %d files (%v), want one per replaced revision, %d", len(infos), err, changes+1)
	}
}

// TestFinishingAStepAndTakingTheNextIsOneStatement: a move with Next (the step finished and
// the next ready one taken) is one statement, the same keeping swap as any change.
func TestFinishingAStepAndTakingTheNextIsOneStatement(t *testing.T) {
	s, b, counter := countingStore(t, "- [ ] build\n- [ ] test\n- [ ] tag\n")
	if _, _, err := s.MoveStep(bg, plan.StepMove{Name: "ship", State: plan.StepInProgress, By: "w"}); err != nil { // prepares the statement
		t.Fatal(err)
	}
	for from := 1; from <= 2; from++ {
		oneKeepingSwap(t, b, counter, func() string {
			_, held, err := s.MoveStep(bg, plan.StepMove{Name: "ship", Step: from, State: plan.StepCompleted, By: "w", Next: true})
			if err != nil {
				t.Fatal(err)
			}
			if held.Number != from+1 || held.Holder != "w" {
				t.Fatalf("took %+v after step %d", held, from)
			}
			return "the move"
		})
	}
}
