package vpath

import (
	"math/rand/v2"
	"path"
	"slices"
	"strings"
	"testing"
)

var oddPaths = []string{"", "/", "//", ".", "..", "/.", "/..", "a", "/a", "/a/", "/a/.", "/a/..", "/a/./b",
	"/a/../b", "/a//b", "a/b", "./a", "/a/b/", "/a/b/../../..", "/...", "/.x/..y", "/..a/b..", "/a/.../b",
	"/plans/p.md", "/plans/.history/p/12-ab"}

// Clean is path.Clean("/"+p) for every path, whether or not it takes the fast path, and
// Split of what it gives is path.Split with the folder cleaned.
func TestCleanIsPathCleanAndSplitIsPathSplit(t *testing.T) {
	parts := []string{"/", "/", "a", "bc", ".", "..", ".h", "..x", "x.", "-"}
	cases := slices.Clone(oddPaths)
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		cases = append(cases, b.String())
	}
	for _, p := range cases {
		checkClean(t, p)
	}
}

func FuzzClean(f *testing.F) {
	for _, p := range oddPaths {
		f.Add(p)
	}
	f.Fuzz(checkClean)
}

func checkClean(t *testing.T, p string) {
	want := path.Clean("/" + p)
	if got := Clean(p); got != want {
		t.Fatalf("Clean(%q) = %q, want %q", p, got, want)
	}
	if isClean(p) != (p == want) {
		t.Fatalf("isClean(%q) = %v, want %v", p, isClean(p), p == want)
	}
	if want == "/" {
		return
	}
	dir, name := path.Split(want)
	if gotDir, gotName := Split(want); gotDir != path.Clean(dir) || gotName != name {
		t.Fatalf("Split(%q) = %q, %q; want %q, %q", want, gotDir, gotName, path.Clean(dir), name)
	}
}
