package redisbackend

import (
	"math/rand/v2"
	"path"
	"strings"
	"testing"
)

// Every path, clean or not, maps to the key form path.Clean gives, and the parent of a
// clean path is the one path.Dir gives, whether or not the fast path takes it.
func TestCleanPathAndParentDirMatchPathPackage(t *testing.T) {
	parts := []string{"/", "/", "a", "bc", ".", "..", ".h", "..x", "x.", "-"}
	cases := []string{"", "/", "//", ".", "..", "/.", "/..", "a", "/a", "/a/", "/a/.", "/a/..", "/a/./b",
		"/a/../b", "/a//b", "/.history/p/3-ab", "/plans/.history", "/..a/b..", "/a/.../b"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		cases = append(cases, b.String())
	}
	for _, p := range cases {
		want := path.Clean("/" + p)
		got := cleanPath(p)
		if got != want {
			t.Fatalf("cleanPath(%q) = %q, want %q", p, got, want)
		}
		if isClean(p) != (p == want) {
			t.Fatalf("isClean(%q) = %v, want %v", p, isClean(p), p == want)
		}
		if dir := parentDir(want); dir != path.Dir(want) {
			t.Fatalf("parentDir(%q) = %q, want %q", want, dir, path.Dir(want))
		}
	}
}
