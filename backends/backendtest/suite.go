package backendtest

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/internal/document"

	"github.com/einoplan/plan/driver"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// NewBackend returns a fresh, empty Backend for one test. Backends that need cleanup
// register it with t.Cleanup.
type NewBackend func(t *testing.T) plan.Backend

// RunBackendSuite runs the conformance tests every Backend must pass: the raw file
// contract the Store relies on (whole reads, not-found errors, folders), the optional
// capabilities it offers, storage identity through wrappers and BaseDir spellings, then the
// Store's semantics on top of it. Each case gets a fresh backend and its own BaseDir, a
// folder directly under "/" unless InFolder says otherwise. The cases, for Skip:
// raw_files, final_newline, capabilities, create_update_revisions, guards, status,
// delete_and_recreate, list_and_corrupt, recover_undecodable, delete_undecodable,
// body_round_trip, large_file, steps, concurrent_guarded_increments, wrappers_share_lock,
// non_comparable_wrapper, base_dir_spellings, canceled_context.
func RunBackendSuite(t *testing.T, newBackend NewBackend, opts ...SuiteOption) {
	t.Helper()
	cfg := suiteConfig{folder: "/", skip: map[string]string{}}
	for _, o := range opts {
		o(&cfg)
	}
	known := map[string]bool{}
	for _, tc := range suiteCases {
		known[tc.name] = true
	}
	for name := range cfg.skip {
		if !known[name] {
			t.Fatalf("backendtest.Skip(%q): no such case", name)
		}
	}
	for _, tc := range suiteCases {
		t.Run(tc.name, func(t *testing.T) {
			if reason, ok := cfg.skip[tc.name]; ok {
				t.Skip(reason)
			}
			b := newBackend(t)
			tc.run(t, b, path.Join(cfg.folder, "plans-"+strings.ReplaceAll(tc.name, "_", "-")))
		})
	}
}

// SuiteOption adapts RunBackendSuite to a backend.
type SuiteOption func(*suiteConfig)

type suiteConfig struct {
	folder string
	skip   map[string]string
}

// InFolder puts every case's BaseDir under folder, an absolute slash-separated path, for a
// backend whose paths are host paths (so the suite never writes outside folder).
func InFolder(folder string) SuiteOption {
	return func(c *suiteConfig) { c.folder = path.Clean("/" + folder) }
}

// Skip skips the case called name, giving reason, for a limitation the backend documents.
// A name that is not a case fails the run, so a typo never skips silently.
func Skip(name, reason string) SuiteOption {
	return func(c *suiteConfig) { c.skip[name] = reason }
}

type suiteCase struct {
	name string
	run  func(t *testing.T, b plan.Backend, dir string)
}

var suiteCases = []suiteCase{
	{"raw_files", testRawFiles},
	{"final_newline", testFinalNewline},
	{"capabilities", testCapabilities},
	{"create_update_revisions", testCreateUpdate},
	{"guards", testGuards},
	{"status", testStatus},
	{"delete_and_recreate", testDeleteRecreate},
	{"list_and_corrupt", testListCorrupt},
	{"recover_undecodable", testRecoverUndecodable},
	{"delete_undecodable", testDeleteUndecodable},
	{"body_round_trip", testBodyRoundTrip},
	{"large_file", testLargeFile},
	{"steps", testSteps},
	{"next_step", testNextStep},
	{"concurrent_guarded_increments", testConcurrentIncrements},
	{"wrappers_share_lock", testWrappersShareLock},
	{"non_comparable_wrapper", testNonComparableWrapper},
	{"base_dir_spellings", testBaseDirSpellings},
	{"canceled_context", testCanceled},
	{"proof_of_done", testProofOfDone},
	{"rolled_back", testRolledBack},
}

func newStore(t *testing.T, b plan.Backend, dir string) *plan.Store {
	t.Helper()
	s, err := plan.NewStore(&plan.StoreConfig{Backend: b, BaseDir: dir, DefaultAuthor: "suite"})
	require.NoError(t, err)
	return s
}

// storeHolding is newStore's Store holding plan name, written with body, and that plan.
func storeHolding(t *testing.T, b plan.Backend, dir, name, body string) (*plan.Store, *plan.Plan) {
	t.Helper()
	s := newStore(t, b, dir)
	p, err := s.Put(context.Background(), plan.Update{Name: name, Content: &body})
	require.NoError(t, err)
	return s, p
}

func ptr[T any](v T) *T { return &v }

func requireCode(t *testing.T, want plan.Code, err error, why ...string) {
	t.Helper()
	require.Error(t, err, why)
	require.Equal(t, want, plan.CodeOf(err), "error: %v %v", err, why)
}

// wholeFile is a line Limit beyond any file the suite writes: the Store always asks for the
// whole file explicitly (Offset 1, a large Limit), never with Limit 0, which some backends
// read as "the first 2,000 lines".
const wholeFile = 1 << 30

// readWhole reads p the way the Store does.
func readWhole(ctx context.Context, b plan.Backend, p string) (string, error) {
	fc, err := b.Read(ctx, &driver.ReadRequest{FilePath: p, Offset: 1, Limit: wholeFile})
	if err != nil {
		return "", err
	}
	if fc == nil {
		return "", fmt.Errorf("Read(%s) returned no content and no error", p)
	}
	return fc.Content, nil
}

// testRawFiles checks the file contract: whole reads, replacing writes, LsInfo entries (a
// Size, where reported, is the byte length), not-found errors the Store recognises, and
// deletes that are idempotent.
func testRawFiles(t *testing.T, b plan.Backend, dir string) {
	ctx := context.Background()
	p := dir + "/raw.md"
	content := "héllo\r\nwörld\n---\n\n  trailing  \n\x00\xff end"
	require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: p, Content: content}))
	got, err := readWhole(ctx, b, p)
	require.NoError(t, err)
	require.Equal(t, content, got)

	require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: p, Content: "short"}))
	got, err = readWhole(ctx, b, p)
	require.NoError(t, err)
	require.Equal(t, "short", got, "a write replaces the whole file")

	infos, err := b.LsInfo(ctx, &driver.LsInfoRequest{Path: dir})
	require.NoError(t, err)
	var found bool
	for _, fi := range infos {
		if path.Base(fi.Path) == "raw.md" {
			found = true
			assert.False(t, fi.IsDir)
			if fi.Size != 0 {
				assert.EqualValues(t, 5, fi.Size, "a reported Size is the file's length in bytes")
			}
		}
	}
	require.True(t, found, "LsInfo(%s) = %+v", dir, infos)

	require.NoError(t, b.Delete(ctx, &driver.DeleteRequest{FilePath: p}))
	_, err = readWhole(ctx, b, p)
	require.Error(t, err)
	// The Store must recognise a missing file as "not found", not as a storage failure,
	// also in a folder that was never created.
	_, err = newStore(t, b, dir).Get(ctx, "raw")
	requireCode(t, plan.CodeNotFound, err)
	_, err = newStore(t, b, dir+"/never/made").Get(ctx, "raw")
	requireCode(t, plan.CodeNotFound, err)
	require.NoError(t, b.Delete(ctx, &driver.DeleteRequest{FilePath: p}), "deleting a missing file is not an error")
}

// testFinalNewline: a file's last bytes, newlines included, come back as written.
func testFinalNewline(t *testing.T, b plan.Backend, dir string) {
	ctx := context.Background()
	for i, content := range []string{"a\n", "a\n\n", "\n", "a\r\n"} {
		p := fmt.Sprintf("%s/nl-%d.md", dir, i)
		require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: p, Content: content}))
		got, err := readWhole(ctx, b, p)
		require.NoError(t, err)
		require.Equal(t, content, got)
	}
}

// testCapabilities checks the optional interfaces the backend offers, directly or through
// Unwrap, against their contracts; a backend that offers none skips it.
func testCapabilities(t *testing.T, b plan.Backend, dir string) {
	ctx := context.Background()
	var offered []string
	if lr, ok := findCapability[driver.LimitedReader](b); ok {
		offered = append(offered, "LimitedReader")
		p := dir + "/limited.md"
		require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: p, Content: "abcdef\n"}))
		got, err := lr.ReadAtMost(ctx, p, 3)
		require.NoError(t, err)
		require.Equal(t, "abc", got, "ReadAtMost returns at most max bytes")
		got, err = lr.ReadAtMost(ctx, p, 100)
		require.NoError(t, err)
		require.Equal(t, "abcdef\n", got, "ReadAtMost returns a smaller file whole")
		_, err = lr.ReadAtMost(ctx, dir+"/missing.md", 100)
		require.Error(t, err)
		_, err = newStore(t, b, dir).Get(ctx, "missing")
		requireCode(t, plan.CodeNotFound, err)
	}
	if r, ok := findCapability[driver.Renamer](b); ok {
		offered = append(offered, "Renamer")
		from, to := dir+"/from.md", dir+"/sub/to"
		require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: from, Content: "moved\n"}))
		require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: to, Content: "replaced"}))
		require.NoError(t, r.Rename(ctx, from, to, -1))
		got, err := readWhole(ctx, b, to)
		require.NoError(t, err)
		require.Equal(t, "moved\n", got, "Rename replaces the target")
		_, err = readWhole(ctx, b, from)
		require.Error(t, err, "Rename removes the source")
		require.NoError(t, r.Rename(ctx, to, from, 3))
		got, err = readWhole(ctx, b, from)
		require.NoError(t, err)
		require.Equal(t, "mov", got, "Rename keeps only the first keep bytes")
	}
	if sw, ok := findCapability[driver.Swapper](b); ok {
		offered = append(offered, "Swapper")
		p := dir + "/cas.md"
		ok, err := sw.CompareAndSwap(ctx, &driver.WriteRequest{FilePath: p, Content: "one"}, nil)
		require.NoError(t, err)
		require.True(t, ok, "create-if-absent on a missing file writes")
		ok, err = sw.CompareAndSwap(ctx, &driver.WriteRequest{FilePath: p, Content: "lost"}, nil)
		require.NoError(t, err)
		require.False(t, ok, "create-if-absent on an existing file does not write")
		ok, err = sw.CompareAndSwap(ctx, &driver.WriteRequest{FilePath: p, Content: "lost"}, ptr("other"))
		require.NoError(t, err)
		require.False(t, ok, "a swap from other bytes does not write")
		ok, err = sw.CompareAndSwap(ctx, &driver.WriteRequest{FilePath: p, Content: "two"}, ptr("one"))
		require.NoError(t, err)
		require.True(t, ok)
		got, err := readWhole(ctx, b, p)
		require.NoError(t, err)
		require.Equal(t, "two", got)
		ok, err = sw.CompareAndDelete(ctx, &driver.DeleteRequest{FilePath: p}, "one")
		require.NoError(t, err)
		require.False(t, ok, "a delete from other bytes does not delete")
		ok, err = sw.CompareAndDelete(ctx, &driver.DeleteRequest{FilePath: p}, "two")
		require.NoError(t, err)
		require.True(t, ok)
		_, err = readWhole(ctx, b, p)
		require.Error(t, err)
	}
	if ks, ok := findCapability[driver.KeepingSwapper](b); ok {
		offered = append(offered, "KeepingSwapper")
		p, k1, k2 := dir+"/pair.md", dir+"/.history/pair/1.aaaaaaaa", dir+"/.history/pair/2.bbbbbbbb"
		ok, err := ks.CompareAndSwapKeeping(ctx, &driver.WriteRequest{FilePath: p, Content: "one"}, nil, k1)
		require.NoError(t, err)
		require.True(t, ok, "create-if-absent on a missing file writes")
		_, err = readWhole(ctx, b, k1)
		require.Error(t, err, "a create replaces nothing, so it keeps nothing")
		ok, err = ks.CompareAndSwapKeeping(ctx, &driver.WriteRequest{FilePath: p, Content: "lost"}, ptr("other"), k1)
		require.NoError(t, err)
		require.False(t, ok, "a swap from other bytes does not write")
		_, err = readWhole(ctx, b, k1)
		require.Error(t, err, "a refused swap keeps nothing")
		ok, err = ks.CompareAndSwapKeeping(ctx, &driver.WriteRequest{FilePath: p, Content: "two"}, ptr("one"), k1)
		require.NoError(t, err)
		require.True(t, ok)
		ok, err = ks.CompareAndSwapKeeping(ctx, &driver.WriteRequest{FilePath: p, Content: "three"}, ptr("two"), k2)
		require.NoError(t, err)
		require.True(t, ok)
		for path, want := range map[string]string{p: "three", k1: "one", k2: "two"} {
			got, err := readWhole(ctx, b, path)
			require.NoError(t, err)
			require.Equal(t, want, got, path)
		}
		infos, err := b.LsInfo(ctx, &driver.LsInfoRequest{Path: dir + "/.history/pair"})
		require.NoError(t, err)
		require.Len(t, infos, 2, "the kept files are listed in their folder")
	}
	if ld, ok := findCapability[driver.LazyDeleter](b); ok {
		offered = append(offered, "LazyDeleter")
		a, c := dir+"/.history/lazy/1-a", dir+"/.history/lazy/2-b"
		for _, p := range []string{a, c} {
			require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: p, Content: "x"}))
		}
		require.NoError(t, ld.DeleteLazily(ctx, a, c, dir+"/.history/lazy/missing"), "a missing file is not an error")
		for _, p := range []string{a, c} {
			_, err := readWhole(ctx, b, p)
			require.Error(t, err, "DeleteLazily removes %s", p)
		}
	}
	if fs, ok := findCapability[driver.FolderStamper](b); ok {
		offered = append(offered, "FolderStamper")
		stamped := dir + "/stamped"
		stamp := func() (string, bool) {
			st, recent, err := fs.FolderStamp(ctx, stamped)
			require.NoError(t, err)
			return st, recent
		}
		moved := func(what string, change func()) {
			before, _ := stamp()
			change()
			after, recent := stamp()
			require.True(t, after != before || recent, "%s leaves the folder's stamp as it was and does not call it recent", what)
		}
		moved("creating a file", func() {
			require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: stamped + "/a.md", Content: "one"}))
		})
		moved("replacing a file", func() {
			require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: stamped + "/a.md", Content: "two"}))
		})
		moved("removing a file", func() {
			require.NoError(t, b.Delete(ctx, &driver.DeleteRequest{FilePath: stamped + "/a.md"}))
		})
		first, _ := stamp()
		again, _ := stamp()
		require.Equal(t, first, again, "an unchanged folder keeps its stamp")
	}
	if len(offered) == 0 {
		t.Skip("the backend offers none of LimitedReader, Renamer, Swapper, KeepingSwapper, LazyDeleter, FolderStamper")
	}
	t.Logf("checked %s", strings.Join(offered, ", "))
}

// findCapability looks for T on b and along its Unwrap chain.
func findCapability[T any](b plan.Backend) (T, bool) {
	for range 16 {
		if c, ok := b.(T); ok {
			return c, true
		}
		u, ok := b.(driver.Unwrapper)
		if !ok {
			break
		}
		b = u.Unwrap()
	}
	var zero T
	return zero, false
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

	requireRefused(t, s, plan.Update{Name: "beta"})
}

// requireRefused: the Store refuses u as invalid and writes nothing.
func requireRefused(t *testing.T, s *plan.Store, u plan.Update) {
	t.Helper()
	_, err := s.Put(context.Background(), u)
	requireCode(t, plan.CodeInvalidArgument, err)
	_, err = s.Get(context.Background(), u.Name)
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
	_, err = s.Put(ctx, plan.Update{Name: "big", Content: ptr(strings.Repeat("x", api.DefaultMaxContentBytes+1))})
	requireCode(t, plan.CodeTooLarge, err)
	_, err = s.Put(ctx, plan.Update{Name: "empty", Content: ptr("")})
	requireCode(t, plan.CodeInvalidArgument, err)
	listing, err := s.ListPage(ctx, plan.ListOptions{})
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

	listing, err := s.ListPage(ctx, plan.ListOptions{})
	require.NoError(t, err)
	require.Len(t, listing.Plans, 1)
	require.Empty(t, listing.Warnings)
}

func testListCorrupt(t *testing.T, b plan.Backend, dir string) {
	ctx := context.Background()
	s := newStore(t, b, dir)
	listing, err := s.ListPage(ctx, plan.ListOptions{})
	require.NoError(t, err)
	require.Empty(t, listing.Plans)
	require.Empty(t, listing.Warnings)

	for _, n := range []string{"zeta", "alpha", "mid"} {
		_, err := s.Put(ctx, plan.Update{Name: n, Content: ptr("- [x] a\n- [ ] b\n")})
		require.NoError(t, err)
	}
	require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: dir + "/broken.md", Content: "---\ntitle: \"x\nno close"}))
	require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: dir + "/Not-A-Plan.md", Content: "ignored"}))
	require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: dir + "/notes.txt", Content: "ignored"}))

	listing, err = s.ListPage(ctx, plan.ListOptions{})
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
	require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: dir + "/mid.md", Content: document.EncodePlan(p)}))
	listing, err = s.ListPage(ctx, plan.ListOptions{})
	require.NoError(t, err)
	require.Empty(t, listing.Warnings)
	require.Equal(t, "changed elsewhere", listing.Plans[1].Status)
	require.NoError(t, b.Delete(ctx, &driver.DeleteRequest{FilePath: dir + "/zeta.md"}))
	listing, err = s.ListPage(ctx, plan.ListOptions{})
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
		stored, err := readWhole(ctx, b, p)
		require.NoError(t, err)
		require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: p, Content: breakage.edit(stored)}))
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

// testDeleteUndecodable: files that do not decode (cut short in the header, as a torn write
// leaves them, or never a plan at all) are listed as warnings, an unguarded delete removes
// them, and the name is created again above any revision the broken file still names.
func testDeleteUndecodable(t *testing.T, b plan.Backend, dir string) {
	ctx := context.Background()
	s := newStore(t, b, dir)
	for _, tc := range []struct {
		name      string
		breakFile func(stored string) string
		// keepsRevision: the broken file still names the revision it reached.
		keepsRevision bool
	}{
		{"torn", func(stored string) string { return stored[:strings.Index(stored, "\nupdated_at:")+5] }, true},
		{"garbage", func(string) string { return "\x00\x01 not a plan\n" }, false},
		{"empty", func(string) string { return "" }, false},
	} {
		var rev int64
		for range 3 {
			p, err := s.Put(ctx, plan.Update{Name: tc.name, Content: ptr("- [ ] a\n")})
			require.NoError(t, err)
			rev = p.Revision
		}
		file := dir + "/" + tc.name + ".md"
		stored, err := readWhole(ctx, b, file)
		require.NoError(t, err)
		require.Contains(t, stored, "\nupdated_at:")
		require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: file, Content: tc.breakFile(stored)}))

		_, err = s.Get(ctx, tc.name)
		requireCode(t, plan.CodeCorrupt, err, tc.name)
		listing, err := s.ListPage(ctx, plan.ListOptions{})
		require.NoError(t, err)
		require.Len(t, listing.Warnings, 1, tc.name)
		require.Equal(t, tc.name, listing.Warnings[0].Name)
		_, err = s.Delete(ctx, tc.name, ptr(rev))
		requireCode(t, plan.CodeCorrupt, err, "a guarded delete cannot check a broken file")
		_, err = s.Delete(ctx, tc.name, nil)
		require.NoError(t, err, tc.name)
		_, err = s.Get(ctx, tc.name)
		requireCode(t, plan.CodeNotFound, err, tc.name)
		listing, err = s.ListPage(ctx, plan.ListOptions{})
		require.NoError(t, err)
		require.Empty(t, listing.Warnings, tc.name)

		p, err := s.Put(ctx, plan.Update{Name: tc.name, Content: ptr("again"), IfRevision: ptr(int64(0))})
		require.NoError(t, err, tc.name)
		if tc.keepsRevision {
			require.Greater(t, p.Revision, rev, "%s: revisions never repeat for a name", tc.name)
			_, err = s.Put(ctx, plan.Update{Name: tc.name, Content: ptr("stale"), IfRevision: ptr(rev)})
			requireCode(t, plan.CodeRevisionConflict, err, tc.name)
		}
		got, err := s.Get(ctx, tc.name)
		require.NoError(t, err)
		require.Equal(t, "again", got.Content)
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
		"\x00 binary-ish",
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
	// Text that is not UTF-8 is refused, naming the field, and nothing is written.
	for _, u := range []plan.Update{{Content: ptr("bad \xff")}, {Content: ptr("ok"), Title: "T\xfftle"}, {Content: ptr("ok"), Status: "\xff"}, {Content: ptr("ok"), Author: "\xc3"}} {
		u.Name = "not-utf8"
		requireRefused(t, s, u)
	}
}

// testLargeFile: a plan of 2,500 steps (~300 KB) round-trips byte for byte, and a step
// update rewrites it whole. Backends that read "the first 2,000 lines" or a fixed number of
// bytes unless told otherwise fail here. The body ends without a newline, so only
// final_newline depends on how a backend treats a file's last byte.
func testLargeFile(t *testing.T, b plan.Backend, dir string) {
	ctx := context.Background()
	s := newStore(t, b, dir)
	const steps = 2500
	lines := make([]string, steps)
	for i := range lines {
		lines[i] = fmt.Sprintf("- [ ] step %04d %s", i+1, strings.Repeat("abcdefghij", 11))
	}
	body := strings.Join(lines, "\n")
	require.Greater(t, len(body), 290_000)
	_, err := s.Put(ctx, plan.Update{Name: "large", Content: &body})
	require.NoError(t, err)
	got, err := s.Get(ctx, "large")
	require.NoError(t, err)
	require.True(t, got.Content == body, "the body came back as %d bytes, not %d", len(got.Content), len(body))
	raw, err := readWhole(ctx, b, dir+"/large.md")
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(raw, body), "a whole read returns every line")

	const moved = 2400
	_, step, err := s.MoveStep(ctx, plan.StepMove{Name: "large", Step: moved, State: plan.StepCompleted, IfRevision: ptr(got.Revision)})
	require.NoError(t, err)
	require.Equal(t, moved, step.Number)
	got, err = s.Get(ctx, "large")
	require.NoError(t, err)
	lines[moved-1] = strings.Replace(lines[moved-1], "[ ]", "[x]", 1)
	require.True(t, got.Content == strings.Join(lines, "\n"), "only step %d changed", moved)
	sum := plan.Summarize(got)
	require.Equal(t, steps, sum.Progress.Total)
	require.Equal(t, 1, sum.Progress.Completed)
}

func testSteps(t *testing.T, b plan.Backend, dir string) {
	ctx := context.Background()
	s, _ := storeHolding(t, b, dir, "steps", "# S\n- [ ] one\n- [ ] two\n")
	p, step, err := s.MoveStep(ctx, plan.StepMove{Name: "steps", Step: 1, State: plan.StepCompleted, Note: "ok", IfRevision: ptr(int64(1))})
	require.NoError(t, err)
	require.EqualValues(t, 2, p.Revision)
	require.Equal(t, plan.StepCompleted, step.State)
	_, _, err = s.MoveStep(ctx, plan.StepMove{Name: "steps", Step: 1, State: plan.StepPending})
	requireCode(t, plan.CodeIllegalTransition, err)
	_, _, err = s.MoveStep(ctx, plan.StepMove{Name: "steps", Step: 3, State: plan.StepCompleted})
	requireCode(t, plan.CodeInvalidArgument, err)
	got, err := s.Get(ctx, "steps")
	require.NoError(t, err)
	require.EqualValues(t, 2, got.Revision, "rejected step updates wrote nothing")
	sum := plan.Summarize(got)
	require.Equal(t, 1, sum.Progress.Completed)
	require.NotNil(t, sum.CurrentStep)
	require.Equal(t, 2, sum.CurrentStep.Number)
}

// testNextStep: a move with Next finishes a step and takes the next ready one in one
// guarded write, on every backend: one revision, one history entry, the step taken held by
// the mover; on the last step it finishes without an error.
func testNextStep(t *testing.T, b plan.Backend, dir string) {
	ctx := context.Background()
	s, _ := storeHolding(t, b, dir, "next", "# N\n- [ ] one\n- [ ] two (after 3)\n- [ ] three\n")
	_, _, err := s.MoveStep(ctx, plan.StepMove{Name: "next", Step: 1, State: plan.StepInProgress, By: "w"})
	require.NoError(t, err)
	for _, want := range []struct{ from, took int }{{1, 3}, {3, 2}} {
		before, err := s.History(ctx, "next")
		require.NoError(t, err)
		p, held, err := s.MoveStep(ctx, plan.StepMove{Name: "next", Step: want.from, State: plan.StepCompleted, By: "w", Next: true})
		require.NoError(t, err)
		require.Equal(t, want.took, held.Number)
		require.Equal(t, "w", held.Holder)
		require.Equal(t, plan.StepInProgress, held.State)
		after, err := s.History(ctx, "next")
		require.NoError(t, err)
		require.Len(t, after, len(before)+1, "one history entry")
		require.Equal(t, p.Revision, after[0].Revision)
	}
	p, last, err := s.MoveStep(ctx, plan.StepMove{Name: "next", Step: 2, State: plan.StepCompleted, By: "w", Next: true})
	require.NoError(t, err)
	require.Equal(t, 2, last.Number)
	require.Equal(t, 3, plan.Summarize(p).Progress.Completed)
}

// testConcurrentIncrements: 8 goroutines × 25 guarded increments through two Stores.
func testConcurrentIncrements(t *testing.T, b plan.Backend, dir string) {
	incrementConcurrently(t, 8, 25, newStore(t, b, dir), newStore(t, b, dir))
}

// incrementConcurrently runs workers goroutines, spread over stores, that each make each
// guarded increments of one counter plan, and checks that none was lost.
func incrementConcurrently(t *testing.T, workers, each int, stores ...*plan.Store) {
	t.Helper()
	ctx := context.Background()
	_, err := stores[0].Put(ctx, plan.Update{Name: "counter", Content: ptr("0")})
	require.NoError(t, err)
	for _, err := range InParallel(workers, func(w int) error { return GuardedIncrements(ctx, stores[w%len(stores)], "counter", each) }) {
		require.NoError(t, err)
	}
	for _, s := range stores {
		got, err := s.Get(ctx, "counter")
		require.NoError(t, err)
		require.EqualValues(t, 1+workers*each, got.Revision)
		require.Equal(t, fmt.Sprint(workers*each), got.Content, "no lost update")
	}
}

// unwrapping is a wrapper that says what it wraps; it offers no capability of its own.
type unwrapping struct{ inner plan.Backend }

func (w *unwrapping) LsInfo(ctx context.Context, req *driver.LsInfoRequest) ([]driver.FileInfo, error) {
	return w.inner.LsInfo(ctx, req)
}
func (w *unwrapping) Read(ctx context.Context, req *driver.ReadRequest) (*driver.FileContent, error) {
	return w.inner.Read(ctx, req)
}
func (w *unwrapping) Write(ctx context.Context, req *driver.WriteRequest) error {
	return w.inner.Write(ctx, req)
}
func (w *unwrapping) Delete(ctx context.Context, req *driver.DeleteRequest) error {
	return w.inner.Delete(ctx, req)
}
func (w *unwrapping) Unwrap() plan.Backend { return w.inner }

// embedding is a value-type wrapper that embeds the Backend it wraps.
type embedding struct{ plan.Backend }

// tagged is a value-type wrapper that is not comparable (it holds a slice), as a wrapper
// with options or middleware lists is.
type tagged struct {
	inner plan.Backend
	tags  []string
}

func (w tagged) LsInfo(ctx context.Context, req *driver.LsInfoRequest) ([]driver.FileInfo, error) {
	return w.inner.LsInfo(ctx, req)
}
func (w tagged) Read(ctx context.Context, req *driver.ReadRequest) (*driver.FileContent, error) {
	return w.inner.Read(ctx, req)
}
func (w tagged) Write(ctx context.Context, req *driver.WriteRequest) error {
	return w.inner.Write(ctx, req)
}
func (w tagged) Delete(ctx context.Context, req *driver.DeleteRequest) error {
	return w.inner.Delete(ctx, req)
}

// taggedUnwrapping is tagged with Unwrap.
type taggedUnwrapping struct{ tagged }

func (w taggedUnwrapping) Unwrap() plan.Backend { return w.inner }

// testWrappersShareLock: Stores on a wrapper with Unwrap, on a wrapper embedding the
// Backend and on the Backend itself are on one storage, so they share one lock and every
// capability, and lose no guarded increment.
func testWrappersShareLock(t *testing.T, b plan.Backend, dir string) {
	incrementConcurrently(t, 6, 15,
		newStore(t, &unwrapping{b}, dir), newStore(t, embedding{b}, dir), newStore(t, b, dir))
}

// testNonComparableWrapper: a value-type wrapper that is not comparable never makes the
// Store panic; with Unwrap it shares the lock of what it wraps; without, it still works
// (sharing then takes one explicit Store).
func testNonComparableWrapper(t *testing.T, b plan.Backend, dir string) {
	incrementConcurrently(t, 6, 15,
		newStore(t, taggedUnwrapping{tagged{b, []string{"metrics"}}}, dir), newStore(t, b, dir))
	ctx := context.Background()
	lone := newStore(t, tagged{b, []string{"logging"}}, dir)
	p, err := lone.Put(ctx, plan.Update{Name: "lone", Content: ptr("- [ ] a\n")})
	require.NoError(t, err)
	_, _, err = lone.MoveStep(ctx, plan.StepMove{Name: "lone", Step: 1, State: plan.StepCompleted, IfRevision: ptr(p.Revision)})
	require.NoError(t, err)
	got, err := newStore(t, b, dir).Get(ctx, "lone")
	require.NoError(t, err)
	require.EqualValues(t, 2, got.Revision)
	_, err = lone.Delete(ctx, "lone", ptr(got.Revision))
	require.NoError(t, err)
}

// testBaseDirSpellings: "x", "/x" and "/x/" name one folder, so Stores given each spelling
// share one lock and see the same plans.
func testBaseDirSpellings(t *testing.T, b plan.Backend, dir string) {
	spellings := []string{strings.TrimPrefix(dir, "/"), dir, dir + "/"}
	var stores []*plan.Store
	for _, d := range spellings {
		s, err := plan.NewStore(&plan.StoreConfig{Backend: b, BaseDir: d})
		require.NoError(t, err)
		stores = append(stores, s)
	}
	incrementConcurrently(t, 6, 15, stores...)
	for i, s := range stores {
		listing, err := s.ListPage(context.Background(), plan.ListOptions{})
		require.NoError(t, err)
		require.Len(t, listing.Plans, 1, "BaseDir %q", spellings[i])
		require.Equal(t, "counter", listing.Plans[0].Name)
	}
	_, err := readWhole(context.Background(), b, dir+"/counter.md")
	require.NoError(t, err, "every spelling names the folder %s", dir)
}

// InParallel runs work(0) to work(n-1) at once and returns the errors they end with.
func InParallel(n int, work func(i int) error) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = work(i) })
	}
	wg.Wait()
	return slices.DeleteFunc(errs, func(err error) bool { return err == nil })
}

// GuardedIncrements adds n to the integer body of plan name, one guarded write at a time,
// re-reading and retrying on revision_conflict. Tests of cross-process safety run it in
// several processes at once.
func GuardedIncrements(ctx context.Context, s *plan.Store, name string, n int) error {
	for done := 0; done < n; {
		p, err := s.Get(ctx, name)
		if err != nil {
			return err
		}
		v, err := strconv.Atoi(strings.TrimSpace(p.Content))
		if err != nil {
			return fmt.Errorf("revision %d body %q: %w", p.Revision, p.Content, err)
		}
		_, err = s.Put(ctx, plan.Update{Name: name, Content: ptr(strconv.Itoa(v + 1)), IfRevision: &p.Revision})
		if code := plan.CodeOf(err); code != "" && code != plan.CodeRevisionConflict {
			return err
		}
		if err == nil {
			done++
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
