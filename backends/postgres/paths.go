package postgres

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/einoplan/plan/driver"
)

// A file is one row keyed by (dir, name): dir is the clean absolute folder ("/" for the
// root, never a trailing slash otherwise) and name the base name. Folders are not stored:
// a folder exists while some row's dir is it or lies below it.

// cleanPath maps any request path onto one absolute, slash-separated form, so "/plans/a.md",
// "plans/a.md" and "/plans//a.md" name one file.
func cleanPath(p string) string { return path.Clean("/" + p) }

// splitFile cleans p and returns its folder and base name. It refuses the root (a folder,
// never a file) and paths PostgreSQL text cannot hold (NUL bytes, invalid UTF-8); the error
// wraps fs.ErrInvalid and driver.ErrNotWritten, since nothing was sent.
func splitFile(p string) (dir, name string, err error) {
	c := cleanPath(p)
	if c == "/" || !validText(c) {
		return "", "", fmt.Errorf("postgres backend: %q is not a file path: %w (%w)", p, fs.ErrInvalid, driver.ErrNotWritten)
	}
	return path.Dir(c), path.Base(c), nil
}

// validText reports whether s can be stored in a PostgreSQL text column.
func validText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// childPrefix is what every path strictly inside the clean folder dir starts with.
func childPrefix(dir string) string {
	if dir == "/" {
		return "/"
	}
	return dir + "/"
}

// childBound is the least string above every path that starts with childPrefix(dir) in
// byte order: the trailing "/" raised to "0", the next byte.
func childBound(dir string) string {
	p := childPrefix(dir)
	return p[:len(p)-1] + "0"
}

// joinPath is the path LsInfo reports for the entry name of dir.
func joinPath(dir, name string) string { return childPrefix(dir) + name }

// channelFor is the LISTEN/NOTIFY channel of the folder dir in schema: the trigger computes
// the same name from the row's dir, so a feed hears exactly its folder's changes.
func channelFor(schema, dir string) string {
	sum := sha256.Sum256([]byte(schema + ":" + dir))
	return "plan_" + hex.EncodeToString(sum[:])[:40]
}
