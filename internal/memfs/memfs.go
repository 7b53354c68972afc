package memfs

import (
	"context"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/modtime"
	"github.com/einoplan/plan/internal/vpath"

	"github.com/cloudwego/eino/adk/filesystem"
	"github.com/cloudwego/eino/adk/middlewares/plantask"
)

var (
	_ driver.Swapper        = (*Backend)(nil)
	_ driver.KeepingSwapper = (*Backend)(nil)
)

// Backend keeps files in a map. It is safe for concurrent use and its guarantees end
// at the process: use it for tests, one-process apps and caches of something durable.
// Paths are cleaned with path.Clean, so "/plans/a.md" and "/plans//a.md" are one file.
// Every write stamps a strictly increasing ModifiedAt, so the Store's list cache never
// mistakes a rewrite of the same size for an unchanged file.
type Backend struct {
	mu sync.RWMutex
	// folders holds every folder that holds something, by clean path: files live in their
	// folder, so a lookup hashes into a small map, and LsInfo reads one folder.
	folders map[string]*memFolder
	clock   int64
	times   modtime.Formatter // formats clock's ticks
	changes uint64            // counts every change of a folder's entries: the source of folder stamps
}

// memFolder is what one folder holds: its files by name and its subfolders, each
// subfolder holding something. stamp is the Backend's change count when its entries last
// changed, so a stamp never names two different listings.
type memFolder struct {
	files map[string]memFile
	subs  map[string]struct{}
	stamp uint64
}

type memFile struct {
	content  string
	modified string // RFC 3339 with nanoseconds, formatted once per write
	path     string // the clean path it is stored at, as listings name it
}

// New returns an empty Backend.
func New() *Backend {
	return &Backend{folders: map[string]*memFolder{}, times: modtime.New()}
}

// LsInfo lists the files and implied folders directly inside req.Path, in no particular
// order (like Eino's backends).
func (b *Backend) LsInfo(ctx context.Context, req *filesystem.LsInfoRequest) ([]filesystem.FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	dir := vpath.Clean(req.Path)
	prefix := strings.TrimSuffix(dir, "/") + "/"
	b.mu.RLock()
	defer b.mu.RUnlock()
	f := b.folders[dir]
	if f == nil {
		return nil, nil
	}
	out := make([]filesystem.FileInfo, 0, len(f.files)+len(f.subs))
	for _, c := range f.files {
		out = append(out, filesystem.FileInfo{Path: c.path, Size: int64(len(c.content)), ModifiedAt: c.modified})
	}
	for name := range f.subs {
		out = append(out, filesystem.FileInfo{Path: prefix + name, IsDir: true})
	}
	return out, nil
}

// file returns the file at the clean path p; called with mu held.
func (b *Backend) file(p string) (memFile, bool) {
	dir, name := vpath.Split(p)
	if f := b.folders[dir]; f != nil {
		c, ok := f.files[name]
		return c, ok
	}
	return memFile{}, false
}

// put stores c at the clean path p, making its folders as needed; called with mu held.
func (b *Backend) put(p string, c memFile) {
	dir, name := vpath.Split(p)
	f := b.folders[dir]
	if f == nil {
		f = b.makeFolder(dir)
	}
	c.path = p
	f.files[name] = c
	b.changed(f)
}

// changed gives the folder f a stamp no state of any folder had; called with mu held.
func (b *Backend) changed(f *memFolder) {
	b.changes++
	f.stamp = b.changes
}

// makeFolder adds the empty folder dir and links it in its parents, making those that are
// missing. A folder is listed in its parent exactly while it holds something, so only a
// folder that appears or disappears touches the folder above it.
func (b *Backend) makeFolder(dir string) *memFolder {
	made := &memFolder{files: map[string]memFile{}, subs: map[string]struct{}{}}
	b.folders[dir] = made
	for dir != "/" {
		parent, name := vpath.Split(dir)
		f, existed := b.folders[parent]
		if !existed {
			f = &memFolder{files: map[string]memFile{}, subs: map[string]struct{}{}}
			b.folders[parent] = f
		}
		f.subs[name] = struct{}{}
		b.changed(f)
		if existed {
			break
		}
		dir = parent
	}
	return made
}

// remove deletes the file at the clean path p, and the folders it leaves empty; called
// with mu held.
func (b *Backend) remove(p string) {
	dir, name := vpath.Split(p)
	f := b.folders[dir]
	if f == nil {
		return
	}
	if _, ok := f.files[name]; !ok {
		return
	}
	delete(f.files, name)
	b.changed(f)
	for len(f.files)+len(f.subs) == 0 {
		delete(b.folders, dir)
		if dir == "/" {
			return
		}
		dir, name = vpath.Split(dir)
		if f = b.folders[dir]; f == nil {
			return
		}
		delete(f.subs, name)
		b.changed(f)
	}
}

// Read returns the whole file, honouring Offset and Limit as line numbers like Eino's
// backends do. A missing file is an error wrapping fs.ErrNotExist.
func (b *Backend) Read(ctx context.Context, req *filesystem.ReadRequest) (*filesystem.FileContent, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := vpath.Clean(req.FilePath)
	b.mu.RLock()
	f, ok := b.file(p)
	b.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("read %s: %w", p, fs.ErrNotExist)
	}
	return &filesystem.FileContent{Content: driver.LineWindow(f.content, req.Offset, req.Limit)}, nil
}

// ReadAtMost returns at most the first max bytes of the file.
func (b *Backend) ReadAtMost(ctx context.Context, filePath string, max int64) (string, error) {
	fc, err := b.Read(ctx, &filesystem.ReadRequest{FilePath: filePath})
	if err != nil {
		return "", err
	}
	if int64(len(fc.Content)) > max {
		return fc.Content[:max], nil
	}
	return fc.Content, nil
}

// Write replaces the whole file.
func (b *Backend) Write(ctx context.Context, req *filesystem.WriteRequest) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p := vpath.Clean(req.FilePath)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.put(p, memFile{content: req.Content, modified: b.modified()})
	return nil
}

// CompareAndSwap writes only if the file still holds *old (is absent when old is nil), so a
// guarded write is atomic whatever Store or Go value reaches this backend.
func (b *Backend) CompareAndSwap(ctx context.Context, req *filesystem.WriteRequest, old *string) (bool, error) {
	return b.swapKeeping(ctx, req, old, "")
}

// swapKeeping is CompareAndSwap that, when keep is not "" and a file is replaced, also
// stores the replaced file at keep.
func (b *Backend) swapKeeping(ctx context.Context, req *filesystem.WriteRequest, old *string, keep string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	p := vpath.Clean(req.FilePath)
	dir, name := vpath.Split(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	f := b.folders[dir]
	var cur memFile
	exists := false
	if f != nil {
		cur, exists = f.files[name]
	}
	if exists != (old != nil) || (exists && cur.content != *old) {
		return false, nil
	}
	// One time for both files: each is still a time no earlier write gave.
	modified := b.modified()
	if exists && keep != "" {
		b.put(vpath.Clean(keep), memFile{content: cur.content, modified: modified})
	}
	if !exists {
		b.put(p, memFile{content: req.Content, modified: modified})
		return true, nil
	}
	// The file's folder holds it, so it stays: replace it in place.
	f.files[name] = memFile{content: req.Content, modified: modified, path: cur.path}
	b.changed(f)
	return true, nil
}

// CompareAndSwapKeeping is CompareAndSwap that also keeps the replaced file at keep, sharing
// its bytes (driver.KeepingSwapper).
func (b *Backend) CompareAndSwapKeeping(ctx context.Context, req *filesystem.WriteRequest, old *string, keep string) (bool, error) {
	return b.swapKeeping(ctx, req, old, keep)
}

// KeepsFor reports whether v is b itself (driver.Keeper).
func (b *Backend) KeepsFor(v any) bool { return v == any(b) }

// CompareAndDelete deletes only if the file still holds old.
func (b *Backend) CompareAndDelete(ctx context.Context, req *plantask.DeleteRequest, old string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	p := vpath.Clean(req.FilePath)
	b.mu.Lock()
	defer b.mu.Unlock()
	if cur, ok := b.file(p); !ok || cur.content != old {
		return false, nil
	}
	b.remove(p)
	return true, nil
}

// Delete removes the file; a missing file is not an error.
func (b *Backend) Delete(ctx context.Context, req *plantask.DeleteRequest) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.remove(vpath.Clean(req.FilePath))
	return nil
}

// modified is the ModifiedAt of a file written now: tick, formatted; called with mu held.
func (b *Backend) modified() string { return b.times.Format(b.tick()) }

// tick returns a time strictly after every earlier one, even when the wall clock stalls.
func (b *Backend) tick() time.Time {
	now := time.Now().UnixNano()
	if now <= b.clock {
		now = b.clock + 1
	}
	b.clock = now
	return time.Unix(0, now).UTC()
}

// Stamps returns b's folder stamps (driver.FolderStamper). They are not a method of b, so
// that a wrapper embedding *Backend, whose LsInfo may list other paths than the stamp
// would cover, never offers them behind its own LsInfo: the Store takes them only from a
// Backend that is b or unwraps to it.
func Stamps(b *Backend) driver.FolderStamper { return stamps{b} }

type stamps struct{ b *Backend }

// FolderStamp returns a stamp of the folder dir that changes with every write or delete of
// a file directly in it and every subfolder that appears or goes; changes below its
// subfolders leave it. A change is never recent: the stamps come from a count, not a clock.
// An absent folder's stamp names the count too, so no stamp ever comes back once anything
// changed.
func (s stamps) FolderStamp(ctx context.Context, dir string) (string, bool, error) {
	if err := ctx.Err(); err != nil {
		return "", false, err
	}
	p := vpath.Clean(dir)
	b := s.b
	b.mu.RLock()
	defer b.mu.RUnlock()
	if f := b.folders[p]; f != nil {
		return strconv.FormatUint(f.stamp, 10), false, nil
	}
	return "absent/" + strconv.FormatUint(b.changes, 10), false, nil
}

// StrictModTimes reports that every write gives a file a ModifiedAt no earlier write had,
// so the Store may cache a summary the moment it reads it.
func (b *Backend) StrictModTimes() bool { return true }
