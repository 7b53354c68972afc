package redisbackend

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/einoplan/plan/internal/vpath"
)

// Key layout under the prefix P. Every key carries a hash tag {G} naming its group folder G,
// so all keys of one group share one Redis Cluster slot and each script touches one slot:
//
//	P{G}f:<path>   string: the file's bytes
//	P{G}d:<dir>    hash: one field per entry directly inside dir; a file's field is its base
//	               name with value "<size> <mtime>", a folder's field is its base name plus "/"
//	P{G}t:<token>  string: the memo of a conditional mutation applied in the last minute,
//	               named by the random token of its call
//	P{G}clock      string: the last mtime handed out in the group, in microseconds
//	P{G}e:<dir>    pub/sub channel (not a key): one message per write or delete inside dir
//
// The group of a folder is the folder itself, cut before its first component that starts
// with a dot: a plan folder, its ".deleted" tombstones and any other hidden folder under it
// form one group, and different plan folders spread over the slots. A folder exists
// exactly while its hash is non-empty. Inside a group the scripts add and remove folder
// fields up the chain of parents in the same step as the file; the entry of a group's
// top folder in the parent folder (another group, another slot) is linked and unlinked
// right after, outside the script (see link.go).

// cleanPath maps any request path onto the one absolute, slash-separated form used in keys,
// so "/plans/a.md", "plans/a.md" and "/plans//a.md" name one file.
func cleanPath(p string) string { return vpath.Clean(p) }

// toFilePath cleans p and refuses the root, which is a folder and can never hold bytes.
func toFilePath(p string) (string, error) {
	c := cleanPath(p)
	if c == "/" {
		return "", fmt.Errorf("redis backend: %q is not a file path: %w", p, fs.ErrInvalid)
	}
	return c, nil
}

// groupOf returns the group folder of the clean folder dir: dir cut before its first
// hidden component.
func groupOf(dir string) string {
	if i := strings.Index(dir, "/."); i >= 0 {
		if i == 0 {
			return "/"
		}
		return dir[:i]
	}
	return dir
}

func (b *Backend) contentKey(p string) string     { return b.key(groupOf(parentDir(p)), "f:", p) }
func (b *Backend) dirKey(dir string) string       { return b.key(groupOf(dir), "d:", dir) }
func (b *Backend) memoKey(g, token string) string { return b.key(g, "t:", token) }
func (b *Backend) clockKey(g string) string       { return b.key(g, "clock", "") }
func (b *Backend) channel(dir string) string      { return b.key(groupOf(dir), "e:", dir) }

// key is the key of kind and name in group g, built in one allocation.
func (b *Backend) key(g, kind, name string) string { return b.prefix + "{" + g + "}" + kind + name }

// parentDir returns the clean folder holding the clean path p, a part of p.
func parentDir(p string) string {
	dir, _ := vpath.Split(p)
	return dir
}

// chain returns, for the file p, the index keys of its folder and of every ancestor up to
// and including its group folder, and the field each of them holds for the step below it:
// the file's base name in its own folder, then "<folder>/" in each parent. All of them
// share one slot.
func (b *Backend) chain(p string) (keys []string, fields []string) {
	dir, name := vpath.Split(p)
	g := groupOf(dir)
	keys = append(make([]string, 0, 4), b.dirKey(dir))
	fields = append(make([]string, 0, 4), name)
	for d := dir; d != g; {
		parent := parentDir(d)
		keys = append(keys, b.dirKey(parent))
		fields = append(fields, path.Base(d)+"/")
		d = parent
	}
	return keys, fields
}

// crossesGroups reports whether the subfolder name of the clean folder dir starts a group
// of its own, so its entry in dir's index is kept outside the scripts.
func crossesGroups(dir, name string) bool {
	return !strings.HasPrefix(name, ".") && groupOf(dir) == dir
}

// joinPath is the path reported by LsInfo for an entry of dir.
func joinPath(dir, name string) string {
	return strings.TrimSuffix(dir, "/") + "/" + name
}
