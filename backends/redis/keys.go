package redisbackend

import (
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// Key layout under the prefix P (every key of one Backend starts with P, so a prefix with a
// hash tag such as "{plan}:" keeps them on one Redis Cluster slot, which the scripts need):
//
//	P f:<path>   string: the file's bytes
//	P d:<dir>    hash: one field per entry directly inside dir; a file's field is its base
//	             name with value "<size> <mtime>", a folder's field is its base name plus "/"
//	P w:<path>   sorted set: tokens of conditional mutations applied in the last minute
//	P clock      string: the last mtime handed out, in microseconds
//
// A folder exists exactly while its hash is non-empty; the scripts add and remove folder
// fields up the chain of parents in the same step as the file itself.

// cleanPath maps any request path onto the one absolute, slash-separated form used in keys,
// so "/plans/a.md", "plans/a.md" and "/plans//a.md" name one file.
func cleanPath(p string) string { return path.Clean("/" + p) }

// toFilePath cleans p and refuses the root, which is a folder and can never hold bytes.
func toFilePath(p string) (string, error) {
	c := cleanPath(p)
	if c == "/" {
		return "", fmt.Errorf("redis backend: %q is not a file path: %w", p, fs.ErrInvalid)
	}
	return c, nil
}

func (b *Backend) contentKey(p string) string { return b.prefix + "f:" + p }
func (b *Backend) dirKey(dir string) string   { return b.prefix + "d:" + dir }
func (b *Backend) memoKey(p string) string    { return b.prefix + "w:" + p }
func (b *Backend) clockKey() string           { return b.prefix + "clock" }

// chain returns, for the file p, the index keys of its folder and of every ancestor up to
// "/", and the field each of them holds for the step below it: the file's base name in its
// own folder, then "<folder>/" in each parent.
func (b *Backend) chain(p string) (keys []string, fields []string) {
	dir, name := path.Split(p)
	keys = append(keys, b.dirKey(cleanPath(dir)))
	fields = append(fields, name)
	for d := cleanPath(dir); d != "/"; {
		parent, base := path.Split(d)
		parent = cleanPath(parent)
		keys = append(keys, b.dirKey(parent))
		fields = append(fields, base+"/")
		d = parent
	}
	return keys, fields
}

// joinPath is the path reported by LsInfo for an entry of dir.
func joinPath(dir, name string) string {
	return strings.TrimSuffix(dir, "/") + "/" + name
}
