// Package vpath handles the slash-separated virtual paths the Backends are given.
package vpath

import (
	"path"
	"strings"
)

// Clean is path.Clean("/" + p), the one absolute form of p, so "/plans/a.md", "plans/a.md"
// and "/plans//a.md" name one file. A path already in that form (most are) is returned as
// it is, without allocating.
func Clean(p string) string {
	if isClean(p) {
		return p
	}
	return path.Clean("/" + p)
}

// isClean reports whether p is "/" or slash-separated elements after a leading slash, none
// empty, "." or "..", with no slash at the end.
func isClean(p string) bool {
	if p == "/" {
		return true
	}
	if len(p) < 2 || p[0] != '/' || p[len(p)-1] == '/' {
		return false
	}
	for elem := range strings.SplitSeq(p[1:], "/") {
		switch elem {
		case "", ".", "..":
			return false
		}
	}
	return true
}

// Split is path.Split of a clean path p other than "/", with the folder clean: the folder
// holding p and p's last element, both parts of p.
func Split(p string) (dir, name string) {
	i := strings.LastIndexByte(p, '/')
	if i == 0 {
		return "/", p[1:]
	}
	return p[:i], p[i+1:]
}
