package localfs

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/cloudwego/eino/adk/filesystem"
	"github.com/cloudwego/eino/adk/middlewares/plantask"
	"github.com/einoplan/plan/driver"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newTestLocal(t *testing.T, opts ...Option) (*Backend, string) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "root")
	return openLocal(t, root, opts...), root
}

// openLocal is a Backend on root, closed when the test ends.
func openLocal(t *testing.T, root string, opts ...Option) *Backend {
	t.Helper()
	b, err := New(root, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	return b
}

func mustWrite(t *testing.T, b *Backend, p, content string) {
	t.Helper()
	require.NoError(t, b.Write(context.Background(), &filesystem.WriteRequest{FilePath: p, Content: content}))
}

func mustRead(t *testing.T, b *Backend, p string) string {
	t.Helper()
	fc, err := b.Read(context.Background(), &filesystem.ReadRequest{FilePath: p})
	require.NoError(t, err)
	return fc.Content
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// snapshotTree describes every entry under dir without following symbolic links: path,
// type, and a hash of regular files' content.
func snapshotTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		desc := d.Type().String()
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			desc += fmt.Sprintf(" %x", sha256.Sum256(data))
		}
		out[p] = desc
		return nil
	})
	require.NoError(t, err)
	return out
}

func TestLocalBackendVirtualPaths(t *testing.T) {
	ctx := context.Background()
	b, root := newTestLocal(t)

	mustWrite(t, b, "/plans/a.md", "one")
	data, err := os.ReadFile(filepath.Join(root, "plans", "a.md"))
	require.NoError(t, err)
	assert.Equal(t, "one", string(data))

	for _, p := range []string{"/plans/a.md", "plans/a.md", "//plans/./a.md", "/plans/x/../a.md", "plans//a.md"} {
		assert.Equal(t, "one", mustRead(t, b, p), p)
	}
	mustWrite(t, b, "plans/a.md", "two")
	assert.Equal(t, "two", mustRead(t, b, "/plans/a.md"))

	for _, dir := range []string{"/plans", "plans", "plans/", "/plans/"} {
		infos, err := b.LsInfo(ctx, &filesystem.LsInfoRequest{Path: dir})
		require.NoError(t, err)
		require.Len(t, infos, 1, dir)
		assert.Equal(t, "/plans/a.md", infos[0].Path)
		assert.False(t, infos[0].IsDir)
		assert.EqualValues(t, 3, infos[0].Size)
	}
	for _, dir := range []string{"/", "", "."} {
		infos, err := b.LsInfo(ctx, &filesystem.LsInfoRequest{Path: dir})
		require.NoError(t, err)
		require.Len(t, infos, 1, dir)
		assert.Equal(t, filesystem.FileInfo{Path: "/plans", IsDir: true, Size: infos[0].Size, ModifiedAt: infos[0].ModifiedAt}, infos[0])
	}

	require.NoError(t, b.Delete(ctx, &plantask.DeleteRequest{FilePath: "plans/a.md"}))
	_, err = os.Stat(filepath.Join(root, "plans", "a.md"))
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

func TestLocalBackendRootIsNotAFile(t *testing.T) {
	ctx := context.Background()
	b, _ := newTestLocal(t)
	for _, p := range []string{"/", "", ".", "plans/.."} {
		_, err := b.Read(ctx, &filesystem.ReadRequest{FilePath: p})
		assert.ErrorIs(t, err, driver.ErrNotRegularFile, p)
		assert.Error(t, b.Write(ctx, &filesystem.WriteRequest{FilePath: p, Content: "x"}), p)
		assert.Error(t, b.Delete(ctx, &plantask.DeleteRequest{FilePath: p}), p)
	}
}

func TestLocalBackendMissing(t *testing.T) {
	ctx := context.Background()
	b, _ := newTestLocal(t)

	_, err := b.Read(ctx, &filesystem.ReadRequest{FilePath: "/plans/none.md"})
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.True(t, errors.Is(err, fs.ErrNotExist))
	_, err = b.ReadAtMost(ctx, "/plans/none.md", 10)
	assert.ErrorIs(t, err, fs.ErrNotExist)

	infos, err := b.LsInfo(ctx, &filesystem.LsInfoRequest{Path: "/no/such/folder"})
	assert.NoError(t, err)
	assert.Empty(t, infos)

	assert.NoError(t, b.Delete(ctx, &plantask.DeleteRequest{FilePath: "/plans/none.md"}))
	assert.NoError(t, b.Delete(ctx, &plantask.DeleteRequest{FilePath: "/no/such/folder/none.md"}))
}

func TestLocalBackendReadLinesAndAtMost(t *testing.T) {
	ctx := context.Background()
	b, _ := newTestLocal(t)
	mustWrite(t, b, "/f.md", "l1\nl2\nl3\nl4\n")

	fc, err := b.Read(ctx, &filesystem.ReadRequest{FilePath: "/f.md", Offset: 2, Limit: 2})
	require.NoError(t, err)
	assert.Equal(t, "l2\nl3\n", fc.Content)
	fc, err = b.Read(ctx, &filesystem.ReadRequest{FilePath: "/f.md", Offset: 4})
	require.NoError(t, err)
	assert.Equal(t, "l4\n", fc.Content)

	s, err := b.ReadAtMost(ctx, "/f.md", 4)
	require.NoError(t, err)
	assert.Equal(t, "l1\nl", s)
	s, err = b.ReadAtMost(ctx, "/f.md", 1000)
	require.NoError(t, err)
	assert.Equal(t, "l1\nl2\nl3\nl4\n", s)
	s, err = b.ReadAtMost(ctx, "/f.md", -1)
	require.NoError(t, err)
	assert.Equal(t, "", s)
}

func TestLocalBackendOversizedFile(t *testing.T) {
	ctx := context.Background()
	b, root := newTestLocal(t)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "plans"), 0o700))
	big := filepath.Join(root, "plans", "big.md")
	f, err := os.Create(big)
	require.NoError(t, err)
	_, err = f.WriteString("# head\n")
	require.NoError(t, err)
	require.NoError(t, f.Truncate(17<<20)) // sparse: refusing must not depend on reading it
	require.NoError(t, f.Close())

	_, err = b.Read(ctx, &filesystem.ReadRequest{FilePath: "/plans/big.md"})
	assert.ErrorIs(t, err, ErrFileTooLarge)
	assert.Contains(t, err.Error(), "/plans/big.md")

	s, err := b.ReadAtMost(ctx, "/plans/big.md", 1024)
	require.NoError(t, err)
	assert.Len(t, s, 1024)
	assert.True(t, strings.HasPrefix(s, "# head\n"))

	small, _ := newTestLocal(t, WithMaxFileSize(4))
	mustWrite(t, small, "/a.md", "1234")
	assert.Equal(t, "1234", mustRead(t, small, "/a.md"))
	mustWrite(t, small, "/b.md", "12345")
	_, err = small.Read(ctx, &filesystem.ReadRequest{FilePath: "/b.md"})
	assert.ErrorIs(t, err, ErrFileTooLarge)
}

func TestLocalBackendFolderInPlaceOfFile(t *testing.T) {
	ctx := context.Background()
	b, root := newTestLocal(t)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "plans", "a.md", "inner"), 0o700))

	_, err := b.Read(ctx, &filesystem.ReadRequest{FilePath: "/plans/a.md"})
	assert.ErrorIs(t, err, driver.ErrNotRegularFile)
	assert.Contains(t, err.Error(), "folder")
	_, err = b.ReadAtMost(ctx, "/plans/a.md", 10)
	assert.ErrorIs(t, err, driver.ErrNotRegularFile)
	assert.Error(t, b.Write(ctx, &filesystem.WriteRequest{FilePath: "/plans/a.md", Content: "x"}))
	assert.DirExists(t, filepath.Join(root, "plans", "a.md", "inner"))
	assert.Equal(t, []string{"a.md"}, dirNames(t, filepath.Join(root, "plans")), "no temp file left behind")
	require.NoError(t, b.Delete(ctx, &plantask.DeleteRequest{FilePath: "/plans/a.md"}), "delete frees the name")
	assert.NoDirExists(t, filepath.Join(root, "plans", "a.md"))

	// A file where a folder is expected.
	mustWrite(t, b, "/notes.md", "x")
	_, err = b.LsInfo(ctx, &filesystem.LsInfoRequest{Path: "/notes.md"})
	assert.Error(t, err)
	assert.Error(t, b.Write(ctx, &filesystem.WriteRequest{FilePath: "/notes.md/a.md", Content: "x"}))
}

// umaskedMode returns the mode a file created with perm actually gets in this process.
func umaskedMode(t *testing.T, perm fs.FileMode) fs.FileMode {
	t.Helper()
	p := filepath.Join(t.TempDir(), "probe")
	require.NoError(t, os.WriteFile(p, nil, 0o777))
	fi, err := os.Stat(p)
	require.NoError(t, err)
	return perm & fi.Mode().Perm()
}

func TestLocalBackendPermissions(t *testing.T) {
	if localOpenNonblock == 0 {
		t.Skip("Unix permission bits only")
	}
	b, root := newTestLocal(t)
	mustWrite(t, b, "/plans/deep/a.md", "x")
	for _, dir := range []string{root, filepath.Join(root, "plans"), filepath.Join(root, "plans", "deep")} {
		fi, err := os.Stat(dir)
		require.NoError(t, err)
		assert.Equal(t, umaskedMode(t, 0o700), fi.Mode().Perm(), dir)
	}
	fi, err := os.Stat(filepath.Join(root, "plans", "deep", "a.md"))
	require.NoError(t, err)
	assert.Equal(t, umaskedMode(t, 0o600), fi.Mode().Perm())

	b2, root2 := newTestLocal(t, WithPermissions(0o750, 0o640))
	mustWrite(t, b2, "/plans/a.md", "x")
	fi, err = os.Stat(filepath.Join(root2, "plans"))
	require.NoError(t, err)
	assert.Equal(t, umaskedMode(t, 0o750), fi.Mode().Perm())
	fi, err = os.Stat(filepath.Join(root2, "plans", "a.md"))
	require.NoError(t, err)
	assert.Equal(t, umaskedMode(t, 0o640), fi.Mode().Perm())
}

func TestLocalBackendOptionsValidated(t *testing.T) {
	dir := t.TempDir()
	for _, opt := range []Option{
		WithMaxFileSize(0),
		WithMaxFileSize(-1),
		WithPermissions(0o500, 0o600),
		WithPermissions(0o700, 0o400),
		WithPermissions(0o700|fs.ModeSticky, 0o600),
	} {
		_, err := New(dir, opt)
		assert.Error(t, err)
	}
	_, err := New("")
	assert.Error(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "file"), nil, 0o600))
	_, err = New(filepath.Join(dir, "file"))
	assert.Error(t, err)
}

func TestLocalBackendHidesTempAndLockFiles(t *testing.T) {
	ctx := context.Background()
	b, root := newTestLocal(t)
	mustWrite(t, b, "/plans/a.md", "x")
	plans := filepath.Join(root, "plans")
	for _, name := range []string{".a.md.tmp-123", ".b.tmp-x", localLockName} {
		require.NoError(t, os.WriteFile(filepath.Join(plans, name), []byte("junk"), 0o600))
	}
	infos, err := b.LsInfo(ctx, &filesystem.LsInfoRequest{Path: "/plans"})
	require.NoError(t, err)
	require.Len(t, infos, 1)
	assert.Equal(t, "/plans/a.md", infos[0].Path)

	// Fresh temp files belong to live writers and stay.
	assert.ElementsMatch(t, []string{"a.md", ".a.md.tmp-123", ".b.tmp-x", localLockName}, dirNames(t, plans))
}

func TestLocalBackendWriteLeavesNoTempFiles(t *testing.T) {
	b, root := newTestLocal(t)
	for i := range 5 {
		mustWrite(t, b, "/plans/a.md", strings.Repeat("x", i))
	}
	assert.Equal(t, []string{"a.md"}, dirNames(t, filepath.Join(root, "plans")))
}

func TestLocalBackendStaleTempCleanup(t *testing.T) {
	ctx := context.Background()
	old := time.Now().Add(-11 * time.Minute)
	for _, tc := range []struct {
		name  string
		do    func(t *testing.T, b *Backend)
		swept bool // the stale temp file is gone afterwards
	}{
		{"LsInfo", func(t *testing.T, b *Backend) {
			_, err := b.LsInfo(ctx, &filesystem.LsInfoRequest{Path: "/plans"})
			require.NoError(t, err)
		}, true},
		{"Write", func(t *testing.T, b *Backend) { mustWrite(t, b, "/plans/b.md", "x") }, true},
		{"WriteElsewhere", func(t *testing.T, b *Backend) { mustWrite(t, b, "/other/b.md", "x") }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, root := newTestLocal(t)
			plans := filepath.Join(root, "plans")
			require.NoError(t, os.MkdirAll(plans, 0o700))
			stale := filepath.Join(plans, ".a.md.tmp-stale")
			fresh := filepath.Join(plans, ".a.md.tmp-fresh")
			require.NoError(t, os.WriteFile(stale, []byte("half"), 0o600))
			require.NoError(t, os.Chtimes(stale, old, old))
			require.NoError(t, os.WriteFile(fresh, []byte("half"), 0o600))
			tc.do(t, b)
			if !tc.swept {
				assert.FileExists(t, stale, "only the folder written to is swept")
				return
			}
			assert.NoFileExists(t, stale)
			assert.FileExists(t, fresh)
		})
	}
}

func TestLocalBackendModifiedAt(t *testing.T) {
	ctx := context.Background()
	b, root := newTestLocal(t)
	mustWrite(t, b, "/plans/a.md", "x")
	infos, err := b.LsInfo(ctx, &filesystem.LsInfoRequest{Path: "/plans"})
	require.NoError(t, err)
	require.Len(t, infos, 1)
	fi, err := os.Stat(filepath.Join(root, "plans", "a.md"))
	require.NoError(t, err)
	mod, err := time.Parse(time.RFC3339Nano, infos[0].ModifiedAt)
	require.NoError(t, err)
	assert.True(t, mod.Equal(fi.ModTime()), "full precision: %s vs %s", mod, fi.ModTime())
	assert.WithinDuration(t, time.Now(), mod, time.Minute)
}

func TestLocalBackendCanceledContext(t *testing.T) {
	b, root := newTestLocal(t)
	mustWrite(t, b, "/plans/a.md", "keep")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	_, err := b.LsInfo(ctx, &filesystem.LsInfoRequest{Path: "/plans"})
	assert.ErrorIs(t, err, context.Canceled)
	_, err = b.Read(ctx, &filesystem.ReadRequest{FilePath: "/plans/a.md"})
	assert.ErrorIs(t, err, context.Canceled)
	_, err = b.ReadAtMost(ctx, "/plans/a.md", 1)
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, b.Write(ctx, &filesystem.WriteRequest{FilePath: "/plans/b.md", Content: "x"}), context.Canceled)
	assert.ErrorIs(t, b.Delete(ctx, &plantask.DeleteRequest{FilePath: "/plans/a.md"}), context.Canceled)
	assert.Equal(t, []string{"a.md"}, dirNames(t, filepath.Join(root, "plans")))
}

func TestLocalBackendSymlinksInsideRoot(t *testing.T) {
	ctx := context.Background()
	b, root := newTestLocal(t)
	mustWrite(t, b, "/real/a.md", "inside")
	if err := os.Symlink("real", filepath.Join(root, "plans")); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	require.NoError(t, os.Symlink("../real/a.md", filepath.Join(root, "real", "b.md")))

	assert.Equal(t, "inside", mustRead(t, b, "/plans/a.md"), "a linked folder on the way is followed")
	_, err := b.Read(ctx, &filesystem.ReadRequest{FilePath: "/real/b.md"})
	assert.ErrorIs(t, err, driver.ErrNotRegularFile, "a file that is itself a link is never read through")
	infos, err := b.LsInfo(ctx, &filesystem.LsInfoRequest{Path: "/plans"})
	require.NoError(t, err)
	require.Len(t, infos, 2)
	assert.Equal(t, "/plans/b.md", infos[1].Path)
	assert.NotEqualValues(t, len("inside"), infos[1].Size, "a link is listed as itself")
	require.NoError(t, b.Delete(ctx, &plantask.DeleteRequest{FilePath: "/real/b.md"}))
	assert.Equal(t, "inside", mustRead(t, b, "/real/a.md"), "deleting a link leaves what it leads to")
}

type hostileCase struct {
	path string
	// outside is set when the refusal must wrap driver.ErrOutsideRoot; other paths (an over-long
	// file name) are refused by the operating system.
	outside bool
}

func TestLocalBackendHostilePaths(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	require.NoError(t, os.MkdirAll(outside, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "sentinel.txt"), []byte("untouched"), 0o600))
	b := openLocal(t, root)
	mustWrite(t, b, "/plans/good.md", "good")

	tmpDir, err := filepath.EvalSymlinks(os.TempDir())
	require.NoError(t, err)
	tmpName := fmt.Sprintf("plan-hostile-%d-%d.md", os.Getpid(), time.Now().UnixNano())
	t.Cleanup(func() { os.Remove(filepath.Join(tmpDir, tmpName)) })

	links := map[string]string{
		"out":            "../outside",                    // a folder on the way leads outside
		"up":             "..",                            // the parent of the root
		"abs":            filepath.Join(root, "plans"),    // absolute, even though it lands inside
		"tmp":            tmpDir,                          // absolute, to a shared folder
		"hop":            "../outside",                    // second hop of a chain
		"plans/chain":    "../hop",                        // first hop of a chain
		"plans/evil.md":  "../../outside/sentinel.txt",    // a plan that is a link to outside
		"plans/loop.md":  "loop.md",                       // a link to itself
		"plans/dangl.md": "../../outside/missing-file.md", // a dangling link leading outside
	}
	symlinks := true
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(name))); err != nil {
			symlinks = false
			t.Logf("symlinks unavailable, skipping those cases: %v", err)
			break
		}
	}

	cases := []hostileCase{
		{"../x", true},
		{"/../../etc/passwd", true},
		{"a/../../b", true},
		{"\x00", true},
		{"plans/a\x00.md", true},
		{"..", true},
		{"/..", true},
		{"../", true},
		{"plans/../../x", true},
		{"plans/./../../x", true},
		{"//../x", true},
		{"./../x", true},
		{"a/b/../../../x", true},
		{"../outside/sentinel.txt", true},
		{"/../root/../outside/sentinel.txt", true},
		{`..\..\x`, true},
		{`plans\..\..\x`, true},
		{strings.Repeat("../", 1000) + "etc/passwd", true},
		{strings.Repeat("d/", 2100) + "x.md", true},
		{strings.Repeat("a", 300), false},
		{"plans/" + strings.Repeat("b", 256) + ".md", false},
	}
	if symlinks {
		cases = append(cases,
			hostileCase{"out", true},
			hostileCase{"out/sentinel.txt", true},
			hostileCase{"/out/new.md", true},
			hostileCase{"out/sub/new.md", true},
			hostileCase{"up", true},
			hostileCase{"up/outside/sentinel.txt", true},
			hostileCase{"abs/good.md", true},
			hostileCase{"abs/new.md", true},
			hostileCase{"tmp/" + tmpName, true},
			hostileCase{"plans/chain/x.md", true},
			hostileCase{"plans/chain/sentinel.txt", true},
			hostileCase{"plans/evil.md", true},
			hostileCase{"plans/evil.md/x", true},
			hostileCase{"plans/dangl.md", true},
			hostileCase{"plans/loop.md", false},
		)
	}
	require.GreaterOrEqual(t, len(cases), 20)

	// Delete removes an entry that is itself a link, never what it leads to: checked below.
	finalLinks := map[string]bool{"out": true, "up": true, "plans/evil.md": true, "plans/dangl.md": true, "plans/loop.md": true}
	beforeBase := snapshotTree(t, base)

	check := func(t *testing.T, c hostileCase, op string, err error) {
		t.Helper()
		if !assert.Error(t, err, "%s %q must be refused", op, c.path) {
			return
		}
		if c.outside {
			assert.ErrorIs(t, err, driver.ErrOutsideRoot, "%s %q", op, c.path)
		}
		assert.NotErrorIs(t, err, fs.ErrNotExist, "%s %q: refused, not missing", op, c.path)
		assert.Less(t, len(err.Error()), 400, "error messages stay bounded")
	}
	for i, c := range cases {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			_, err := b.Read(ctx, &filesystem.ReadRequest{FilePath: c.path})
			check(t, c, "Read", err)
			_, err = b.ReadAtMost(ctx, c.path, 10)
			check(t, c, "ReadAtMost", err)
			check(t, c, "Write", b.Write(ctx, &filesystem.WriteRequest{FilePath: c.path, Content: "pwned"}))
			if !finalLinks[c.path] {
				check(t, c, "Delete", b.Delete(ctx, &plantask.DeleteRequest{FilePath: c.path}))
			}
			_, err = b.LsInfo(ctx, &filesystem.LsInfoRequest{Path: c.path})
			check(t, c, "LsInfo", err)
		})
	}

	assert.Equal(t, beforeBase, snapshotTree(t, base), "nothing changed inside or outside the root")
	assert.NoFileExists(t, filepath.Join(tmpDir, tmpName))
	data, err := os.ReadFile(filepath.Join(outside, "sentinel.txt"))
	require.NoError(t, err)
	assert.Equal(t, "untouched", string(data))
	assert.Equal(t, "good", mustRead(t, b, "/plans/good.md"))

	if symlinks {
		// Listing a folder that holds links leading outside describes the links themselves
		// and reveals nothing about their targets.
		infos, err := b.LsInfo(ctx, &filesystem.LsInfoRequest{Path: "/plans"})
		require.NoError(t, err)
		for _, fi := range infos {
			if fi.Path == "/plans/evil.md" {
				assert.NotEqualValues(t, len("untouched"), fi.Size)
			}
		}
		for link := range finalLinks {
			require.NoError(t, b.Delete(ctx, &plantask.DeleteRequest{FilePath: link}), "delete %q", link)
			_, err := os.Lstat(filepath.Join(root, filepath.FromSlash(link)))
			assert.ErrorIs(t, err, fs.ErrNotExist, "the link %q itself is removed", link)
		}
		assert.Equal(t, "untouched", readFile(t, filepath.Join(outside, "sentinel.txt")))
		assert.DirExists(t, outside)
		assert.DirExists(t, base)
	}
}

// TestLocalBackendReadersNeverSeePartialWrites runs readers (on this backend and on a second
// one over the same root) against a writer; every read must be one whole version.
func TestLocalBackendReadersNeverSeePartialWrites(t *testing.T) {
	ctx := context.Background()
	b, root := newTestLocal(t)
	other := openLocal(t, root)

	version := func(i int) string {
		body := strings.Repeat(string(rune('a'+i%26)), 512+(i*7919)%20000)
		return fmt.Sprintf("v%d %d\n%s", i, len(body), body)
	}
	valid := func(s string) bool {
		var i, n int
		head, body, ok := strings.Cut(s, "\n")
		if !ok {
			return false
		}
		if _, err := fmt.Sscanf(head, "v%d %d", &i, &n); err != nil {
			return false
		}
		return s == version(i) && len(body) == n
	}
	mustWrite(t, b, "/plans/a.md", version(0))

	var stop atomic.Bool
	var reads atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for r := range 6 {
		reader := b
		if r%2 == 1 {
			reader = other
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				fc, err := reader.Read(ctx, &filesystem.ReadRequest{FilePath: "/plans/a.md"})
				if err != nil {
					errs <- err.Error()
					return
				}
				if !valid(fc.Content) {
					errs <- fmt.Sprintf("partial read: %.40q (%d bytes)", fc.Content, len(fc.Content))
					return
				}
				if _, err := reader.LsInfo(ctx, &filesystem.LsInfoRequest{Path: "/plans"}); err != nil {
					errs <- err.Error()
					return
				}
				reads.Add(1)
			}
		}()
	}
	for i := 1; i <= 40; i++ {
		mustWrite(t, b, "/plans/a.md", version(i))
	}
	stop.Store(true)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	assert.Positive(t, reads.Load())
	assert.Equal(t, version(40), mustRead(t, other, "/plans/a.md"))
	names := dirNames(t, filepath.Join(root, "plans"))
	sort.Strings(names)
	assert.Equal(t, []string{"a.md"}, names)
}

func TestLocalBackendDelete(t *testing.T) {
	ctx := context.Background()
	b, root := newTestLocal(t)
	mustWrite(t, b, "/plans/a.md", "x")
	require.NoError(t, b.Delete(ctx, &plantask.DeleteRequest{FilePath: "/plans/a.md"}))
	require.NoError(t, b.Delete(ctx, &plantask.DeleteRequest{FilePath: "/plans/a.md"}))
	_, err := b.Read(ctx, &filesystem.ReadRequest{FilePath: "/plans/a.md"})
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.Error(t, b.Delete(ctx, &plantask.DeleteRequest{FilePath: "/"}), "the root is never deleted")
	assert.DirExists(t, filepath.Join(root, "plans"))
}

func TestLocalBackendErrorNamesVirtualPath(t *testing.T) {
	b, _ := newTestLocal(t)
	_, err := b.Read(context.Background(), &filesystem.ReadRequest{FilePath: "/plans/none.md"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"/plans/none.md"`)
	_, err = b.Read(context.Background(), &filesystem.ReadRequest{FilePath: "../x"})
	assert.True(t, errors.Is(err, driver.ErrOutsideRoot))
	assert.Contains(t, err.Error(), `".."`)
}

func TestReadUpTo(t *testing.T) {
	content := strings.Repeat("0123456789", 100)
	for _, hint := range []int64{-1, 0, 1, 999, 1000, 1001, 5000} {
		for _, n := range []int64{0, 1, 10, 999, 1000, 1001, 1 << 20} {
			got, err := readUpTo(strings.NewReader(content), hint, n)
			require.NoError(t, err)
			assert.Equal(t, content[:min(int(n), len(content))], string(got), "hint %d n %d", hint, n)
		}
	}
	_, err := readUpTo(iotest.ErrReader(errors.New("boom")), 10, 10)
	assert.EqualError(t, err, "boom")
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(data)
}

// WriteOnce never writes through a link: a hard link at an entry's path to a file outside
// the root is replaced, and the outside file keeps its bytes.
func TestWriteOnceNeverWritesThroughAHardLink(t *testing.T) {
	ctx := context.Background()
	root, outside := t.TempDir(), filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(outside, []byte("keep me"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "plans"), 0o755))
	require.NoError(t, os.Link(outside, filepath.Join(root, "plans", "e")))
	b := openLocal(t, root)
	require.NoError(t, b.WriteOnce(ctx, &driver.WriteRequest{FilePath: "/plans/e", Content: "entry"}))
	got, err := os.ReadFile(outside)
	require.NoError(t, err)
	assert.Equal(t, "keep me", string(got))
	got, err = os.ReadFile(filepath.Join(root, "plans", "e"))
	require.NoError(t, err)
	assert.Equal(t, "entry", string(got))
}
