package memfs

import (
	"maps"
	"path"
	"strconv"
	"strings"
)

// Snapshot is every file of a Backend at one instant, for Restore.
type Snapshot struct{ folders map[string]*memFolder }

// Snapshot returns the Backend's files as they are now.
func (b *Backend) Snapshot() Snapshot {
	b.mu.Lock()
	defer b.mu.Unlock()
	return Snapshot{folders: cloneFolders(b.folders)}
}

// Restore puts back the files of s, replacing every file. Each restored file gets a new
// modification time and each folder a new stamp, as if written anew: nothing cached under a
// file's time or a folder's stamp before Restore is taken for what it restores.
//
// Revisions of plans never repeat across a Restore. A plan file (<dir>/<name>.md with a
// plan header naming its revision) that the Restore would take back to other bytes at a
// revision its name already reached (by its file, or its tombstone <dir>/.deleted/<name>)
// comes back at the revision after the highest reached: its header's revision is raised, so
// it reads as a change made by hand (by nobody known, not approved). A plan the Restore
// removes leaves a tombstone at the highest revision reached, so a plan created again under
// its name goes on from there. Files the Restore leaves as they are keep their bytes.
func (b *Backend) Restore(s Snapshot) {
	b.mu.Lock()
	defer b.mu.Unlock()
	reached := revisionsReached(b.folders)
	was := b.folders
	b.folders = cloneFolders(s.folders)
	for _, f := range b.folders {
		for name, c := range f.files {
			f.files[name] = memFile{content: c.content, modified: b.modified(), path: c.path}
		}
		b.changed(f)
	}
	for p, high := range reached {
		dir, name := path.Split(p)
		dir = path.Clean(dir)
		if c, ok := b.file(p); ok {
			if old, ok := fileIn(was, p); ok && old.content == c.content {
				continue // the same revision, the same bytes
			}
			if rev, ok := planRevision(c.content); ok && rev <= high {
				b.put(p, memFile{content: withRevision(c.content, high+1), modified: b.modified()})
			}
			continue
		}
		grave := path.Join(dir, ".deleted", strings.TrimSuffix(name, ".md"))
		if c, ok := b.file(grave); ok && tombstoneRevision(c.content) >= high {
			continue
		}
		b.put(grave, memFile{content: strconv.FormatInt(high, 10) + "\n", modified: b.modified()})
	}
}

func cloneFolders(folders map[string]*memFolder) map[string]*memFolder {
	out := make(map[string]*memFolder, len(folders))
	for dir, f := range folders {
		out[dir] = &memFolder{files: maps.Clone(f.files), subs: maps.Clone(f.subs)}
	}
	return out
}

// fileIn is the file at the clean path p among folders.
func fileIn(folders map[string]*memFolder, p string) (memFile, bool) {
	dir, name := path.Split(p)
	if f := folders[path.Clean(dir)]; f != nil {
		c, ok := f.files[name]
		return c, ok
	}
	return memFile{}, false
}

// revisionsReached is, by plan file path, the highest revision its plan file or tombstone
// in folders names.
func revisionsReached(folders map[string]*memFolder) map[string]int64 {
	out := map[string]int64{}
	for dir, f := range folders {
		graves := path.Base(dir) == ".deleted"
		for name, c := range f.files {
			var p string
			var rev int64
			var ok bool
			switch {
			case graves:
				p, rev = path.Join(path.Dir(dir), name+".md"), tombstoneRevision(c.content)
				ok = rev > 0
			case strings.HasSuffix(name, ".md"):
				p = path.Join(dir, name)
				rev, ok = planRevision(c.content)
			}
			if ok && rev > out[p] {
				out[p] = rev
			}
		}
	}
	return out
}

const headerFence = "---\n"

// planRevision is the revision a plan file's header names; false for anything else.
func planRevision(content string) (int64, bool) {
	at, ok := revisionLine(content)
	if !ok {
		return 0, false
	}
	line := content[at:]
	line = line[:strings.IndexByte(line, '\n')]
	n, err := strconv.ParseInt(strings.TrimPrefix(line, "revision: "), 10, 64)
	return n, err == nil && n > 0
}

// revisionLine is where the "revision: " line of a plan header starts in content.
func revisionLine(content string) (int, bool) {
	if !strings.HasPrefix(content, headerFence) {
		return 0, false
	}
	for at := len(headerFence); at < len(content); {
		nl := strings.IndexByte(content[at:], '\n')
		if nl < 0 {
			return 0, false
		}
		line := content[at : at+nl]
		if line == "---" {
			return 0, false
		}
		if strings.HasPrefix(line, "revision: ") {
			return at, true
		}
		at += nl + 1
	}
	return 0, false
}

// withRevision is the plan file content with its header's revision set to rev.
func withRevision(content string, rev int64) string {
	at, _ := revisionLine(content)
	end := at + strings.IndexByte(content[at:], '\n')
	return content[:at] + "revision: " + strconv.FormatInt(rev, 10) + content[end:]
}

// tombstoneRevision is the revision a tombstone records: a number, or a header naming it.
func tombstoneRevision(content string) int64 {
	if rev, ok := planRevision(content); ok {
		return rev
	}
	n, err := strconv.ParseInt(strings.TrimSpace(content), 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}
