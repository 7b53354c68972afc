package memfs

import (
	"path"
	"testing"
)

func FuzzSplitClean(f *testing.F) {
	for _, p := range []string{"/plans/p.md", "/a/../b", "//x", "/.", "a"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if c := path.Clean("/" + p); c != "/" {
			checkSplitClean(t, c)
		}
	})
}

// splitClean is path.Split with the folder cleaned, for clean paths.
func TestSplitCleanIsPathSplit(t *testing.T) {
	for _, p := range []string{"/a", "/a/b", "/plans/p.md", "/plans/.history/p/12-ab", "/.x", "/a/b/c/d"} {
		checkSplitClean(t, p)
	}
}

func checkSplitClean(t *testing.T, p string) {
	t.Helper()
	dir, name := path.Split(p)
	gotDir, gotName := splitClean(p)
	if gotDir != path.Clean(dir) || gotName != name {
		t.Fatalf("splitClean(%q) = %q, %q; want %q, %q", p, gotDir, gotName, path.Clean(dir), name)
	}
}
