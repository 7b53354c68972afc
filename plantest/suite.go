package plantest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// NewBackend returns a fresh, empty Backend for one test. Backends that need cleanup
// register it with t.Cleanup.
type NewBackend func(t *testing.T) plan.Backend

// RunBackendSuite runs the conformance tests every Backend must pass: the raw file
// contract the Store relies on, then the Store's semantics on top of it. Each subtest gets
// a fresh backend and its own BaseDir.
func RunBackendSuite(t *testing.T, newBackend NewBackend) {
	t.Helper()
	for _, tc := range suiteCases {
		t.Run(tc.name, func(t *testing.T) {
			b := newBackend(t)
			tc.run(t, b, "/plans-"+strings.ReplaceAll(tc.name, "_", "-"))
		})
	}
}

type suiteCase struct {
	name string
	run  func(t *testing.T, b plan.Backend, dir string)
}

var suiteCases = []suiteCase{
	{"raw_files", testRawFiles},
	{"create_update_revisions", testCreateUpdate},
	{"guards", testGuards},
	{"status", testStatus},
	{"delete_and_recreate", testDeleteRecreate},
	{"list_and_corrupt", testListCorrupt},
	{"recover_undecodable", testRecoverUndecodable},
	{"body_round_trip", testBodyRoundTrip},
	{"steps", testSteps},
	{"concurrent_guarded_increments", testConcurrentIncrements},
	{"canceled_context", testCanceled},
}

func newStore(t *testing.T, b plan.Backend, dir string) *plan.Store {
	t.Helper()
	s, err := plan.NewStore(&plan.StoreConfig{Backend: b, BaseDir: dir, DefaultAuthor: "suite"})
	require.NoError(t, err)
	return s
}

func ptr[T any](v T) *T { return &v }

func requireCode(t *testing.T, want plan.Code, err error, why ...string) {
	t.Helper()
	require.Error(t, err, why)
	require.Equal(t, want, plan.CodeOf(err), "error: %v %v", err, why)
}

func testRawFiles(t *testing.T, b plan.Backend, dir string) {
	ctx := context.Background()
	p := dir + "/raw.md"
	content := "héllo\r\nwörld\n---\n  trailing  \n\n"
	require.NoError(t, b.Write(ctx, &plan.WriteRequest{FilePath: p, Content: content}))
	got, err := b.Read(ctx, &plan.ReadRequest{FilePath: p})
	require.NoError(t, err)
	require.Equal(t, content, got.Content)

	require.NoError(t, b.Write(ctx, &plan.WriteRequest{FilePath: p, Content: "short"}))
	got, err = b.Read(ctx, &plan.ReadRequest{FilePath: p})
	require.NoError(t, err)
	require.Equal(t, "short", got.Content)

	infos, err := b.LsInfo(ctx, &plan.LsInfoRequest{Path: dir})
	require.NoError(t, err)
	var found bool
	for _, fi := range infos {
		if strings.HasSuffix(fi.Path, "raw.md") {
			found = true
			assert.False(t, fi.IsDir)
			assert.EqualValues(t, 5, fi.Size)
		}
	}
	require.True(t, found, "LsInfo(%s) = %+v", dir, infos)

	require.NoError(t, b.Delete(ctx, &plan.DeleteRequest{FilePath: p}))
	_, err = b.Read(ctx, &plan.ReadRequest{FilePath: p})
	require.Error(t, err)
	// The Store must recognise a missing file as "not found", not as a storage failure.
	_, err = newStore(t, b, dir).Get(ctx, "raw")
	requireCode(t, plan.CodeNotFound, err)
	require.NoError(t, b.Delete(ctx, &plan.DeleteRequest{FilePath: p}), "deleting a missing file is not an error")
}

func testCreateUpdate(t *testing.T, b plan.Backend, dir string) {
	ctx := context.Background()
	s := newStore(t, b, dir)
	p, err := s.Put(ctx, plan.Update{Name: "alpha", Content: ptr("# Alpha\n- [ ] one\n")})
	require.NoError(t, err)
	require.EqualValues(t, 1, p.Revision)
	require.Equal(t, "Alpha", p.Title)
	require.Equal(t, "draft", p.Status)
	require.Equal(t, "suite", p.Author)

	p, err = s.Put(ctx, plan.Update{Name: "alpha", Status: "active", Title: "A"})
	require.NoError(t, err)
	require.EqualValues(t, 2, p.Revision)

	got, err := s.Get(ctx, "alpha")
	require.NoError(t, err)
	require.Equal(t, "# Alpha\n- [ ] one\n", got.Content, "omitted content keeps the body")
	require.Equal(t, "A", got.Title)
	require.Equal(t, "active", got.Status)
	require.EqualValues(t, 2, got.Revision)
	require.False(t, got.UpdatedAt.IsZero())

	_, err = s.Put(ctx, plan.Update{Name: "beta"})
	requireCode(t, plan.CodeInvalidArgument, err)
	_, err = s.Get(ctx, "beta")
	requireCode(t, plan.CodeNotFound, err)
}

func testGuards(t *testing.T, b plan.Backend, dir string) {
	ctx := context.Background()
	s := newStore(t, b, dir)
	_, err := s.Put(ctx, plan.Update{Name: "g", Content: ptr("v1"), IfRevision: ptr(int64(0))})
	require.NoError(t, err)
	_, err = s.Put(ctx, plan.Update{Name: "g", Content: ptr("again"), IfRevision: ptr(int64(0))})
	requireCode(t, plan.CodeRevisionConflict, err)
	_, err = s.Put(ctx, plan.Update{Name: "g", Content: ptr("v2"), IfRevision: ptr(int64(7))})
	requireCode(t, plan.CodeRevisionConflict, err)
	var pe *plan.Error
	require.ErrorAs(t, err, &pe)
	require.EqualValues(t, 1, pe.CurrentRevision)
	_, err = s.Put(ctx, plan.Update{Name: "g", Content: ptr("v2"), IfRevision: ptr(int64(-1))})
	requireCode(t, plan.CodeInvalidArgument, err)
	p, err := s.Put(ctx, plan.Update{Name: "g", Content: ptr("v2"), IfRevision: ptr(int64(1))})
	require.NoError(t, err)
	require.EqualValues(t, 2, p.Revision)
	got, err := s.Get(ctx, "g")
	require.NoError(t, err)
	require.Equal(t, "v2", got.Content, "rejected writes changed nothing")

	_, err = s.Put(ctx, plan.Update{Name: "missing", Content: ptr("x"), IfRevision: ptr(int64(3))})
	requireCode(t, plan.CodeNotFound, err)
	_, err = s.Get(ctx, "missing")
	requireCode(t, plan.CodeNotFound, err, "a guarded write never creates")

	for _, bad := range []string{"", "../x", "a/b", "Plan", "x.md", strings.Repeat("a", 65), "a\x00b", "plän"} {
		_, err = s.Put(ctx, plan.Update{Name: bad, Content: ptr("x")})
		requireCode(t, plan.CodeInvalidArgument, err)
	}
	_, err = s.Put(ctx, plan.Update{Name: "big", Content: ptr(strings.Repeat("x", s.MaxContentBytes()+1))})
	requireCode(t, plan.CodeTooLarge, err)
	_, err = s.Put(ctx, plan.Update{Name: "empty", Content: ptr("")})
	requireCode(t, plan.CodeInvalidArgument, err)
	listing, err := s.List(ctx)
	require.NoError(t, err)
	require.Len(t, listing.Plans, 1, "only the good write landed")
}

func testStatus(t *testing.T, b plan.Backend, dir string) {
	ctx := context.Background()
	s := newStore(t, b, dir)
	_, err := s.SetStatus(ctx, "nope", "done", nil)
	requireCode(t, plan.CodeNotFound, err)
	_, err = s.Get(ctx, "nope")
	requireCode(t, plan.CodeNotFound, err, "set status must not create")

	_, err = s.Put(ctx, plan.Update{Name: "st", Content: ptr("body\n")})
	require.NoError(t, err)
	_, err = s.SetStatus(ctx, "st", " ", nil)
	requireCode(t, plan.CodeInvalidArgument, err)
	p, err := s.SetStatus(ctx, "st", "blocked on review", ptr(int64(1)))
	require.NoError(t, err)
	require.EqualValues(t, 2, p.Revision)
	_, err = s.SetStatus(ctx, "st", "x", ptr(int64(1)))
	requireCode(t, plan.CodeRevisionConflict, err)
	got, err := s.Get(ctx, "st")
	require.NoError(t, err)
	require.Equal(t, "blocked on review", got.Status)
	require.Equal(t, "body\n", got.Content)
}

func testDeleteRecreate(t *testing.T, b plan.Backend, dir string) {
	ctx := context.Background()
	s := newStore(t, b, dir)
	_, err := s.Delete(ctx, "ghost", nil)
	requireCode(t, plan.CodeNotFound, err)

	_, err = s.Put(ctx, plan.Update{Name: "d", Content: ptr("one")})
	require.NoError(t, err)
	_, err = s.Delete(ctx, "d", ptr(int64(5)))
	requireCode(t, plan.CodeRevisionConflict, err)
	rev, err := s.Delete(ctx, "d", ptr(int64(1)))
	require.NoError(t, err)
	require.EqualValues(t, 1, rev)
	_, err = s.Get(ctx, "d")
	requireCode(t, plan.CodeNotFound, err)

	// A writer that read revision 1 before the delete must not hit the new plan.
	p, err := s.Put(ctx, plan.Update{Name: "d", Content: ptr("two"), IfRevision: ptr(int64(0))})
	require.NoError(t, err)
	require.Greater(t, p.Revision, int64(1), "revisions never repeat for a name")
	_, err = s.Put(ctx, plan.Update{Name: "d", Content: ptr("stale"), IfRevision: ptr(int64(1))})
	requireCode(t, plan.CodeRevisionConflict, err)
	got, err := s.Get(ctx, "d")
	require.NoError(t, err)
	require.Equal(t, "two", got.Content)

	listing, err := s.List(ctx)
	require.NoError(t, err)
	require.Len(t, listing.Plans, 1)
	require.Empty(t, listing.Warnings)
}

func testListCorrupt(t *testing.T, b plan.Backend, dir string) {
	ctx := context.Background()
	s := newStore(t, b, dir)
	listing, err := s.List(ctx)
	require.NoError(t, err)
	require.Empty(t, listing.Plans)
	require.Empty(t, listing.Warnings)

	for _, n := range []string{"zeta", "alpha", "mid"} {
		_, err := s.Put(ctx, plan.Update{Name: n, Content: ptr("- [x] a\n- [ ] b\n")})
		require.NoError(t, err)
	}
	require.NoError(t, b.Write(ctx, &plan.WriteRequest{FilePath: dir + "/broken.md", Content: "---\ntitle: \"x\nno close"}))
	require.NoError(t, b.Write(ctx, &plan.WriteRequest{FilePath: dir + "/Not-A-Plan.md", Content: "ignored"}))
	require.NoError(t, b.Write(ctx, &plan.WriteRequest{FilePath: dir + "/notes.txt", Content: "ignored"}))

	listing, err = s.List(ctx)
	require.NoError(t, err)
	var names []string
	for _, p := range listing.Plans {
		names = append(names, p.Name)
	}
	require.Equal(t, []string{"alpha", "mid", "zeta"}, names)
	require.Equal(t, 2, listing.Plans[0].Progress.Total)
	require.Equal(t, 1, listing.Plans[0].Progress.Completed)
	require.Len(t, listing.Warnings, 1)
	require.Equal(t, "broken", listing.Warnings[0].Name)
	require.Equal(t, plan.CodeCorrupt, listing.Warnings[0].Code)

	_, err = s.Get(ctx, "broken")
	requireCode(t, plan.CodeCorrupt, err)
	_, err = s.Put(ctx, plan.Update{Name: "broken", Content: ptr("new")})
	requireCode(t, plan.CodeCorrupt, err)
	_, err = s.Delete(ctx, "broken", ptr(int64(1)))
	requireCode(t, plan.CodeCorrupt, err)
	_, err = s.Delete(ctx, "broken", nil)
	require.NoError(t, err, "an unguarded delete recovers a corrupt plan")

	// A change made behind the Store's back (another process) is seen by the next List.
	p, err := s.Get(ctx, "mid")
	require.NoError(t, err)
	p.Status = "changed elsewhere"
	p.Revision++
	require.NoError(t, b.Write(ctx, &plan.WriteRequest{FilePath: dir + "/mid.md", Content: plan.EncodePlan(p)}))
	listing, err = s.List(ctx)
	require.NoError(t, err)
	require.Empty(t, listing.Warnings)
	require.Equal(t, "changed elsewhere", listing.Plans[1].Status)
	require.NoError(t, b.Delete(ctx, &plan.DeleteRequest{FilePath: dir + "/zeta.md"}))
	listing, err = s.List(ctx)
	require.NoError(t, err)
	require.Len(t, listing.Plans, 2)
}

// testRecoverUndecodable breaks a plan's file (a bad header line, then a size over the
// limit) and recovers it with an unguarded delete, as the errors advise: the delete works
// on every backend, and the plan written again continues the revisions, so a writer
// holding an old revision cannot overwrite it.
func testRecoverUndecodable(t *testing.T, b plan.Backend, dir string) {
	ctx := context.Background()
	const maxContent = 64
	s, err := plan.NewStore(&plan.StoreConfig{Backend: b, BaseDir: dir, MaxContentBytes: maxContent})
	require.NoError(t, err)
	p := dir + "/r.md"
	rev := int64(0)
	for _, breakage := range []struct {
		code plan.Code
		edit func(stored string) string
	}{
		{plan.CodeCorrupt, func(stored string) string { return strings.Replace(stored, `title: "`, `title: `, 1) }},
		{plan.CodeTooLarge, func(stored string) string { return stored + strings.Repeat("x", maxContent+32<<10) }},
	} {
		for range 3 {
			got, err := s.Put(ctx, plan.Update{Name: "r", Content: ptr("- [ ] a\n")})
			require.NoError(t, err)
			require.Greater(t, got.Revision, rev)
			rev = got.Revision
		}
		stored, err := b.Read(ctx, &plan.ReadRequest{FilePath: p})
		require.NoError(t, err)
		require.NoError(t, b.Write(ctx, &plan.WriteRequest{FilePath: p, Content: breakage.edit(stored.Content)}))
		_, err = s.Get(ctx, "r")
		requireCode(t, breakage.code, err)
		_, err = s.Delete(ctx, "r", nil)
		require.NoError(t, err, "an unguarded delete recovers a %s plan", breakage.code)
		_, err = s.Get(ctx, "r")
		requireCode(t, plan.CodeNotFound, err)

		got, err := s.Put(ctx, plan.Update{Name: "r", Content: ptr("again"), IfRevision: ptr(int64(0))})
		require.NoError(t, err)
		require.Greater(t, got.Revision, rev, "revisions never repeat for a name, even across a %s plan", breakage.code)
		_, err = s.Put(ctx, plan.Update{Name: "r", Content: ptr("stale"), IfRevision: &rev})
		requireCode(t, plan.CodeRevisionConflict, err)
		rev = got.Revision
	}
}

func testBodyRoundTrip(t *testing.T, b plan.Backend, dir string) {
	ctx := context.Background()
	s := newStore(t, b, dir)
	bodies := []string{
		"plain",
		"---\nlooks: like a header\n---\n",
		"crlf\r\nlines\r\n",
		"trailing spaces   \n\t\n",
		"unicode ✓ 计划 🚀\n",
		"ends with empty line\n\n",
		"no newline at end",
		"\x00 binary-ish \xff",
	}
	for i, body := range bodies {
		name := fmt.Sprintf("body-%d", i)
		_, err := s.Put(ctx, plan.Update{Name: name, Content: ptr(body), Title: "t\"q\\\n", Status: "s: x"})
		require.NoError(t, err)
		got, err := s.Get(ctx, name)
		require.NoError(t, err)
		require.Equal(t, body, got.Content)
		require.Equal(t, "t\"q\\\n", got.Title)
		require.Equal(t, "s: x", got.Status)
	}
}

func testSteps(t *testing.T, b plan.Backend, dir string) {
	ctx := context.Background()
	s := newStore(t, b, dir)
	_, err := s.Put(ctx, plan.Update{Name: "steps", Content: ptr("# S\n- [ ] one\n- [ ] two\n")})
	require.NoError(t, err)
	p, step, err := s.UpdateStep(ctx, "steps", 1, plan.StepCompleted, "ok", ptr(int64(1)))
	require.NoError(t, err)
	require.EqualValues(t, 2, p.Revision)
	require.Equal(t, plan.StepCompleted, step.State)
	_, _, err = s.UpdateStep(ctx, "steps", 1, plan.StepPending, "", nil)
	requireCode(t, plan.CodeIllegalTransition, err)
	_, _, err = s.UpdateStep(ctx, "steps", 3, plan.StepCompleted, "", nil)
	requireCode(t, plan.CodeInvalidArgument, err)
	got, err := s.Get(ctx, "steps")
	require.NoError(t, err)
	require.EqualValues(t, 2, got.Revision, "rejected step updates wrote nothing")
	sum := got.Summarize()
	require.Equal(t, 1, sum.Progress.Completed)
	require.NotNil(t, sum.CurrentStep)
	require.Equal(t, 2, sum.CurrentStep.Number)
}

// testConcurrentIncrements: 8 goroutines × 25 guarded increments through two Stores.
func testConcurrentIncrements(t *testing.T, b plan.Backend, dir string) {
	ctx := context.Background()
	s1, s2 := newStore(t, b, dir), newStore(t, b, dir)
	_, err := s1.Put(ctx, plan.Update{Name: "counter", Content: ptr("0")})
	require.NoError(t, err)
	const workers, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		s := s1
		if w%2 == 1 {
			s = s2
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := GuardedIncrements(ctx, s, "counter", each); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	got, err := s1.Get(ctx, "counter")
	require.NoError(t, err)
	require.EqualValues(t, 1+workers*each, got.Revision)
	require.Equal(t, fmt.Sprint(workers*each), got.Content, "no lost update")
}

// GuardedIncrements adds n to the integer body of plan name, one guarded write at a time,
// re-reading and retrying on revision_conflict. Tests of cross-process safety run it in
// several processes at once.
func GuardedIncrements(ctx context.Context, s *plan.Store, name string, n int) error {
	for i := 0; i < n; {
		p, err := s.Get(ctx, name)
		if err != nil {
			return err
		}
		var v int
		if _, err := fmt.Sscan(p.Content, &v); err != nil {
			return fmt.Errorf("revision %d body %q: %w", p.Revision, p.Content, err)
		}
		_, err = s.Put(ctx, plan.Update{Name: name, Content: ptr(fmt.Sprint(v + 1)), IfRevision: ptr(p.Revision)})
		switch plan.CodeOf(err) {
		case "":
			i++
		case plan.CodeRevisionConflict:
		default:
			return err
		}
	}
	return nil
}

func testCanceled(t *testing.T, b plan.Backend, dir string) {
	s := newStore(t, b, dir)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.Put(ctx, plan.Update{Name: "c", Content: ptr("x")})
	require.Error(t, err)
	_, err = s.Get(context.Background(), "c")
	requireCode(t, plan.CodeNotFound, err)
}
