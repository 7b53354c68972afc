package tools

import (
	"encoding/hex"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/engine"
	"github.com/einoplan/plan/internal/localfs"
)

// The file guard's second reading of a path: by what the file or folder it reaches is on
// disk, not by how the path spells it. A path is refused when it, or a folder it lies in,
// is:
//
//   - by identity ((device, inode), os.SameFile): a plans folder of this process's Stores on
//     the storage, or the key file of one, so a bind mount or a hard link of either is the
//     original;
//   - by layout, whichever process keeps it: a folder with a key named as the Store names
//     it beside it (<parent>/.<folder>.approval-key) or inside it (.approval-key, 0.1.0's
//     place), or with a LocalBackend's lock sentinel (.plan.lock) in it;
//   - by name: a file named as a key (.approval-key, .<folder>.approval-key), existing or
//     not, so a key is neither read nor planted;
//   - by content, for a file with more than one name (a hard link): one that starts as a
//     plan file does (the header's "---" and "format:" lines, or a format 1 header) or holds
//     a key, since the Store never writes a file with two names.
//
// Each costs a few stat calls per folder of the path, and a read of 256 bytes of a file
// only when it has several names.

// keySuffix ends every key file's name: ".<folder>.approval-key", or ".approval-key".
var keySuffix = path.Base(engine.ApprovalKeyPath("/"))

// isKeyName reports whether base is the name of an approval key file.
func isKeyName(base string) bool {
	return strings.HasPrefix(base, ".") && strings.HasSuffix(strings.ToLower(base), keySuffix)
}

// plansOnDisk reports whether the host path p (relative: from the working folder) reaches a
// plans folder, something in one, a key file or a plan file as the comment above says; and,
// for a LocalBackend Workspace, p under its root.
func (env *ToolEnv) plansOnDisk(p string) bool {
	known := env.knownOnDisk()
	if host, err := filepath.Abs(filepath.FromSlash(p)); err == nil && reachesPlans(host, known) {
		return true
	}
	return env.WsRoot != "" && reachesPlans(filepath.Join(env.WsRoot, filepath.FromSlash(p)), known)
}

// knownOnDisk are the plans folders of this process's Stores on the Store's LocalBackend,
// and their key files, as they are now on disk.
func (env *ToolEnv) knownOnDisk() []os.FileInfo {
	if env.PlanRoot == "" {
		return nil
	}
	var out []os.FileInfo
	for _, dir := range engine.PlansFoldersOn(env.Store.Backend, env.Store.Dir) {
		host := filepath.Join(env.PlanRoot, filepath.FromSlash(dir))
		for _, p := range []string{host, filepath.Join(env.PlanRoot, filepath.FromSlash(engine.ApprovalKeyPath(dir))), filepath.Join(host, keySuffix)} {
			if fi, err := os.Stat(p); err == nil {
				out = append(out, fi)
			}
		}
	}
	return out
}

// reachesPlans is plansOnDisk for the clean absolute host path p.
func reachesPlans(p string, known []os.FileInfo) bool {
	if isKeyName(filepath.Base(p)) {
		return true
	}
	for cur, target := p, true; ; cur, target = filepath.Dir(cur), false {
		if fi, err := os.Stat(cur); err == nil {
			for _, k := range known {
				if os.SameFile(fi, k) {
					return true
				}
			}
			switch {
			case fi.IsDir():
				if PlansFolderByLayout(cur) {
					return true
				}
				if real, err := filepath.EvalSymlinks(cur); err == nil && real != cur && PlansFolderByLayout(real) {
					return true
				}
			case target && fi.Mode().IsRegular() && localfs.HardLinked(fi):
				if real, err := filepath.EvalSymlinks(cur); err == nil && isKeyName(filepath.Base(real)) || planOrKeyHead(cur) {
					return true
				}
			}
		}
		if filepath.Dir(cur) == cur {
			return false
		}
	}
}

// PlansFolderByLayout reports whether the host folder dir is a plans folder by its layout: a
// key file named for it beside it, a key file inside it where 0.1.0 kept it, or a
// LocalBackend's lock sentinel inside it.
func PlansFolderByLayout(dir string) bool {
	parent, base := filepath.Split(dir)
	if base == "" {
		return false // the file system's root
	}
	for _, p := range []string{filepath.Join(parent, "."+base+keySuffix), filepath.Join(dir, keySuffix), filepath.Join(dir, localfs.LockFile)} {
		if _, err := os.Lstat(p); err == nil {
			return true
		}
	}
	return false
}

// planOrKeyHead reports whether the regular file at p starts as a plan file does or holds a
// key as the Store writes one.
func planOrKeyHead(p string) bool {
	head := string(localfs.ReadHead(p, 256))
	if rest, ok := strings.CutPrefix(head, document.HeaderFence); ok {
		if strings.HasPrefix(rest, document.HdrFormat+": ") {
			return true
		}
		return strings.Contains(rest, "\nrevision: ") && strings.Contains(rest, "\nupdated_at: ")
	}
	key := strings.TrimSpace(head)
	if len(key) < 64 || len(head) == 256 {
		return false
	}
	_, err := hex.DecodeString(key)
	return err == nil
}

// Bounds of the search for plans folders under a LocalBackend's root.
const (
	storageDepth   = 4
	storageEntries = 4096
)

// PlansOnStorage are the host paths of the plans folders and key files found by layout under
// the root of the Store's LocalBackend, whichever process keeps them: what a search of a
// folder that holds one would reach. The search stops at storageDepth folders down and after
// storageEntries entries, and never enters a plans folder or follows a link.
func (env *ToolEnv) PlansOnStorage() []string {
	if env.PlanRoot == "" {
		return nil
	}
	var found []string
	type folder struct {
		path  string
		depth int
	}
	queue, seen := []folder{{env.PlanRoot, 0}}, 0
	for len(queue) > 0 && seen < storageEntries {
		f := queue[0]
		queue = queue[1:]
		if f.depth > 0 && PlansFolderByLayout(f.path) {
			found = append(found, f.path)
			continue
		}
		entries, err := os.ReadDir(f.path)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if seen++; seen > storageEntries {
				break
			}
			p := filepath.Join(f.path, e.Name())
			switch {
			case isKeyName(e.Name()):
				found = append(found, p)
			case e.IsDir() && f.depth < storageDepth:
				queue = append(queue, folder{p, f.depth + 1})
			}
		}
	}
	return found
}
