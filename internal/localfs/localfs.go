package localfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/einoplan/plan/driver"

	"github.com/cloudwego/eino/adk/filesystem"
	"github.com/cloudwego/eino/adk/middlewares/plantask"
)

// ErrFileTooLarge is wrapped by Backend.Read errors for a file over the configured
// maximum size. The file is refused from its size alone, without being read.
var ErrFileTooLarge = errors.New("file is larger than the backend allows")

const (
	defaultLocalMaxFileSize = 16 << 20
	defaultLocalDirPerm     = 0o700
	defaultLocalFilePerm    = 0o600
	maxLocalPathLen         = 4096

	// localTempMark is part of every temp file name and never of a plan name, which is
	// [a-z0-9_-] only; temp names also start with ".", as the lock sentinel does.
	localTempMark = ".tmp-"
	// localLockName is the sentinel file that Lock and LockPlan lock.
	localLockName = ".plan.lock"
	// localStaleTemp is the age after which a temp file is an orphan of a crashed writer.
	localStaleTemp = 10 * time.Minute
	// localSweepEvery bounds how often Write scans one folder for orphaned temp files.
	localSweepEvery = time.Minute
)

// Option configures New.
type Option func(*config)

type config struct {
	maxFileSize int64
	dirPerm     fs.FileMode
	filePerm    fs.FileMode
}

// WithMaxFileSize sets the largest file Read returns (default 16 MiB). A bigger file is
// refused from its size, never read whole; ReadAtMost still returns its first bytes.
func WithMaxFileSize(n int64) Option {
	return func(c *config) { c.maxFileSize = n }
}

// WithPermissions sets the mode of the folders and files the backend creates (default 0700
// and 0600: plans are private to the user running the agent). Like os.MkdirAll and
// os.WriteFile, the process umask still applies.
func WithPermissions(dir, file fs.FileMode) Option {
	return func(c *config) { c.dirPerm, c.filePerm = dir, file }
}

// Backend stores files under one root folder on the local disk. It is safe for
// concurrent use by goroutines and by processes sharing the folder.
//
// Paths are virtual and rooted at the root: "/plans/a.md" and "plans/a.md" are both
// <root>/plans/a.md. Every access goes through an os.Root, so no path, "..", or symbolic link
// reaches outside the root (see driver.ErrOutsideRoot). Writes are atomic: a reader, in this or any
// other process, sees the old file or the new one, never a mix, and a process killed at any
// instant leaves only whole files behind. Reads are bounded and open only regular files.
//
// On Linux, macOS, the BSDs and illumos it is also a driver.PlanLocker (locks on <dir>/.plan.lock),
// so guarded writes through a Store are atomic across processes on one machine; elsewhere
// that guarantee ends at the process.
type Backend struct {
	root    *os.Root
	name    string // the root's absolute path with links resolved: the storage's identity
	escapes error  // the os.Root error for a path that leaves the root
	cfg     config

	cannotSwap atomic.Bool // the file system refused to swap names: WriteKeeping copies

	mu        sync.Mutex
	lastSweep map[string]time.Time // folder → last scan for orphaned temp files
	listings  keptListings
}

var (
	_ driver.LimitedReader = (*Backend)(nil)
	_ driver.Renamer       = (*Backend)(nil)
	_ driver.FolderStamper = (*Backend)(nil)
)

// New returns a backend rooted at root, creating the folder (mode 0700 by
// default) if it is missing. The root itself may be reached through symbolic links; nothing
// below it may lead back out.
func New(root string, opts ...Option) (*Backend, error) {
	cfg := config{maxFileSize: defaultLocalMaxFileSize, dirPerm: defaultLocalDirPerm, filePerm: defaultLocalFilePerm}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.maxFileSize <= 0 {
		return nil, fmt.Errorf("local backend: max file size %d must be positive", cfg.maxFileSize)
	}
	if cfg.dirPerm&^0o777 != 0 || cfg.dirPerm&0o700 != 0o700 {
		return nil, fmt.Errorf("local backend: folder mode %v must be permission bits including 0700", cfg.dirPerm)
	}
	if cfg.filePerm&^0o777 != 0 || cfg.filePerm&0o600 != 0o600 {
		return nil, fmt.Errorf("local backend: file mode %v must be permission bits including 0600", cfg.filePerm)
	}
	if root == "" {
		return nil, errors.New("local backend: root is empty")
	}
	if err := os.MkdirAll(root, cfg.dirPerm); err != nil {
		return nil, fmt.Errorf("local backend: create root: %w", err)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("local backend: open root: %w", err)
	}
	// os.Root reports every escape with one unexported error value; a leading separator is
	// refused before any system call, which makes it a safe probe for that value.
	var escapes error
	var pe *fs.PathError
	if _, err := r.Lstat("/"); errors.As(err, &pe) {
		escapes = pe.Err
	}
	if escapes == nil {
		r.Close()
		return nil, errors.New("local backend: cannot identify path escapes on this platform")
	}
	name, err := filepath.Abs(root)
	if err == nil {
		if real, rerr := filepath.EvalSymlinks(name); rerr == nil {
			name = real
		}
	}
	return &Backend{root: r, name: name, escapes: escapes, cfg: cfg, lastSweep: map[string]time.Time{}}, nil
}

// StorageName makes two LocalBackends on one folder one storage for the Store's lock.
func (b *Backend) StorageName() string { return b.name }

// Close releases the handle on the root folder. The backend must not be used afterwards.
func (b *Backend) Close() error { return b.root.Close() }

// Root returns the folder the backend was created on, as given to New.
func (b *Backend) Root() string { return b.root.Name() }

// LsInfo lists the entries directly inside the folder req.Path, sorted by path. Path is the
// virtual path ("/plans/a.md"); ModifiedAt is the modification time in RFC 3339 with
// nanoseconds. Temp files and the lock sentinel are never listed; temp files left for more
// than 10 minutes by a crashed writer are removed. A missing folder is an empty list.
func (b *Backend) LsInfo(ctx context.Context, req *filesystem.LsInfoRequest) ([]filesystem.FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	const op = "list"
	rel, err := localRel(op, req.Path)
	if err != nil {
		return nil, err
	}
	folder, err := b.openFolder(rel, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, b.wrap(op, req.Path, err)
	}
	defer folder.Close()
	f, err := folder.OpenFile(".", os.O_RDONLY|localOpenNonblock, 0)
	if err != nil {
		return nil, b.wrap(op, req.Path, err)
	}
	defer f.Close()
	var temps []string
	names, stats, err := readFolder(ctx, f, folder, func(name string) bool {
		if isLocalTemp(name) {
			temps = append(temps, name)
			return false
		}
		return name != localLockName
	})
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		return nil, b.wrap(op, req.Path, err)
	}
	for _, name := range temps { // after the read: some file systems skip entries removed during one
		removeIfStale(folder, name)
	}
	b.noteSweep(rel)
	// One prefix for all: the paths come out sorted too.
	return b.listings.list(rel, "/"+localJoin(rel, ""), names, stats), nil
}

// Read returns the whole file, honouring Offset and Limit as 1-based line numbers. Only a
// regular file of at most the maximum size is read (driver.ErrNotRegularFile, ErrFileTooLarge); a
// missing file is an error wrapping fs.ErrNotExist.
func (b *Backend) Read(ctx context.Context, req *filesystem.ReadRequest) (*filesystem.FileContent, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	limit := b.cfg.maxFileSize
	data, err := b.readWhole(req.FilePath, limit+1, true, false)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, b.wrap("read", req.FilePath, fmt.Errorf("grew past %d bytes while read: %w", limit, ErrFileTooLarge))
	}
	return &filesystem.FileContent{Content: driver.LineWindow(string(data), req.Offset, req.Limit)}, nil
}

// ReadAtMost returns at most the first max bytes of the regular file at filePath, whatever
// its size, reading nothing beyond them.
func (b *Backend) ReadAtMost(ctx context.Context, filePath string, limit int64) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	data, err := b.readWhole(filePath, limit, false, false)
	return string(data), err
}

// ReadLinked is b's ReadAtMost that also reads a regular file with other names (hard
// links), which every other read refuses. The Store reads plan files with it, whose other
// names the file guard refuses by identity and whose next write gives them a file of their
// own (Write renames a fresh file into place), while the approval key stays refused. It is
// not a method of Backend, so no wrapper can reach it by embedding one.
func ReadLinked(ctx context.Context, b *Backend, filePath string, limit int64) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	data, err := b.readWhole(filePath, limit, false, true)
	return string(data), err
}

// readWhole reads up to n bytes of the regular file at vpath (refusing, with refuseLarger,
// a file whose size is over n-1 without reading it), and keeps what it read only if the
// path still names the file it read: a file moved away while it was read (a plan deleted
// onto its tombstone, which is then cut to its header) is read again, so a reader never
// sees a file that changed under it. linked reads a file with other names too.
func (b *Backend) readWhole(vpath string, n int64, refuseLarger, linked bool) ([]byte, error) {
	const op = "read"
	rel, err := localRel(op, vpath)
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		f, fi, err := b.openRegular(op, vpath, linked)
		if err != nil {
			return nil, err
		}
		if refuseLarger && fi.Size() > n-1 {
			f.Close()
			return nil, b.wrap(op, vpath, fmt.Errorf("%d bytes, limit %d: %w", fi.Size(), n-1, ErrFileTooLarge))
		}
		data, err := readUpTo(f, fi.Size(), n)
		f.Close()
		if err != nil {
			return nil, b.wrap(op, vpath, err)
		}
		after, err := b.root.Lstat(rel)
		if err != nil {
			return nil, b.wrap(op, vpath, err)
		}
		if os.SameFile(fi, after) || attempt == 8 {
			return data, nil
		}
	}
}

// readUpTo reads until EOF or n bytes, whichever comes first. The buffer is sized from the
// size fstat reported, so a file that does not change is read without regrowing; one that
// grew meanwhile is still read only up to n.
func readUpTo(r io.Reader, sizeHint, n int64) ([]byte, error) {
	if n <= 0 {
		return nil, nil
	}
	buf := make([]byte, 0, min(max(sizeHint, 0)+1, n))
	for int64(len(buf)) < n {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		m, err := r.Read(buf[len(buf):min(int64(cap(buf)), n)])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return buf, nil
}

// openRegular opens a file for reading without blocking (a named pipe opens at once) and
// keeps it only if it is the regular file the entry names: not a symbolic link to one, and
// not one of several hard links (another may sit outside the folder) unless linked. A file
// renamed into place between the check and the open is checked again.
func (b *Backend) openRegular(op, vpath string, linked bool) (*os.File, fs.FileInfo, error) {
	rel, err := localRel(op, vpath)
	if err != nil {
		return nil, nil, err
	}
	for attempt := 0; ; attempt++ {
		lfi, err := b.root.Lstat(rel)
		if err != nil {
			return nil, nil, b.wrap(op, vpath, err)
		}
		if lfi.Mode()&fs.ModeSymlink != 0 {
			if _, err := b.root.Stat(rel); errors.Is(err, b.escapes) {
				return nil, nil, fmt.Errorf("%w: %w", b.wrap(op, vpath, err), driver.ErrNotRegularFile)
			}
		}
		if !lfi.Mode().IsRegular() {
			return nil, nil, b.wrap(op, vpath, fmt.Errorf("%s: %w", describeMode(lfi.Mode()), driver.ErrNotRegularFile))
		}
		f, err := b.root.OpenFile(rel, os.O_RDONLY|localOpenNonblock, 0)
		if err != nil {
			return nil, nil, b.wrap(op, vpath, err)
		}
		fi, err := f.Stat()
		switch {
		case err != nil:
			f.Close()
			return nil, nil, b.wrap(op, vpath, err)
		case !os.SameFile(fi, lfi) && attempt < 8:
			f.Close() // replaced between Lstat and open: look again
			continue
		case !os.SameFile(fi, lfi) || !fi.Mode().IsRegular():
			f.Close()
			return nil, nil, b.wrap(op, vpath, fmt.Errorf("%s: %w", describeMode(fi.Mode()), driver.ErrNotRegularFile))
		case hardLinked(fi) && !linked:
			f.Close()
			return nil, nil, b.wrap(op, vpath, fmt.Errorf("a file with several hard links: %w", driver.ErrNotRegularFile))
		}
		return f, fi, nil
	}
}

// Write replaces the whole file atomically, creating missing folders: the content goes to a
// temp file in the same folder, which is synced, renamed over the target, and the folder is
// synced. Readers see the old content or the new, never part of it, and a crash at any
// instant leaves one of the two. A symbolic link at the path (one that stays under the root)
// is replaced, not written through; anything else but a regular file is refused.
func (b *Backend) Write(ctx context.Context, req *filesystem.WriteRequest) error {
	return b.writeWithPerm(ctx, req, b.cfg.filePerm)
}

// writeWithPerm is Write of a file created with mode perm.
func (b *Backend) writeWithPerm(ctx context.Context, req *filesystem.WriteRequest, perm fs.FileMode) error {
	const op = "write"
	folder, dir, base, err := b.writeTarget(ctx, req.FilePath)
	if err != nil {
		return err
	}
	defer folder.Close()
	b.sweep(folder, dir)
	if err := b.replace(folder, base, req.Content, perm); err != nil {
		return b.wrap(op, req.FilePath, err)
	}
	return nil
}

// replace renames a synced temp file with content, created with mode perm, over base in
// folder and syncs folder.
func (b *Backend) replace(folder *os.Root, base, content string, perm fs.FileMode) error {
	f, tmp, err := b.createTemp(folder, base, perm)
	if err != nil {
		return err
	}
	if err = writeAndClose(f, content); err == nil {
		err = folder.Rename(tmp, base)
	}
	if err != nil {
		_ = folder.Remove(tmp)
		return err
	}
	return syncFolder(folder)
}

// WriteKeeping does what Write does and, when it replaces a regular file, keeps the replaced
// file at keep (driver.KeepingWriter). Whoever finds the new file also finds the old one at
// keep. On Linux the new content is written at keep and swaps names with the file it
// replaces in one step, so keeping allocates no second file and copies no byte; elsewhere the
// old file is copied to keep before the new one is renamed into place. keep gets
// OnceWriter's durability: a crash may lose it. As driver.KeepingWriter says, writers of one
// file are kept apart by its lock: two WriteKeeping calls of one file at once may undo each
// other.
func (b *Backend) WriteKeeping(ctx context.Context, req *filesystem.WriteRequest, keep string) error {
	const op = "write"
	folder, dir, base, err := b.writeTarget(ctx, req.FilePath)
	if err != nil {
		return err
	}
	defer folder.Close()
	keepRel, keepDir, keepBase, err := b.fileTarget(ctx, op, keep)
	if err == nil && keepRel == path.Join(dir, base) {
		err = b.wrap(op, keep, errKeepIsTheFile)
	}
	if err != nil {
		return err
	}
	old, err := folder.Lstat(base)
	if err != nil || !old.Mode().IsRegular() {
		return b.Write(ctx, req) // nothing a plan file could be to keep
	}
	b.sweep(folder, dir)
	if hardLinked(old) { // its bytes go to keep, and a fresh file replaces this name: the link breaks
		if err := b.copyKeeping(ctx, folder, base, keep, req.Content); err != nil {
			return b.wrap(op, req.FilePath, err)
		}
		return nil
	}
	if swapsNames && !b.cannotSwap.Load() {
		swapped, err := b.swapKeeping(folder, base, old, keepDir, keepBase, req.Content)
		switch {
		case errors.Is(err, errNotSwappedHere): // these two files cannot: copy this once
		case err != nil:
			return b.wrap(op, req.FilePath, err)
		case swapped:
			return nil
		default:
			b.cannotSwap.Store(true) // this file system cannot: copy from now on
		}
	}
	if err := b.copyKeeping(ctx, folder, base, keep, req.Content); err != nil {
		return b.wrap(op, req.FilePath, err)
	}
	return nil
}

// swapKeeping writes content, synced, at keepBase in the folder keepDir (created when
// missing) and swaps it with base in folder, whose file is old, then syncs folder. It
// reports false, having written nothing, where the file system cannot swap names, and
// errNotSwappedHere where these two files cannot. An error before the swap leaves nothing
// written; one from the final sync leaves the swap done or not. A file already at keepBase
// is what a crash before a swap left: it is replaced, unless it is old itself (keep reaches
// the file through a link).
func (b *Backend) swapKeeping(folder *os.Root, base string, old fs.FileInfo, keepDir, keepBase, content string) (bool, error) {
	kept, err := b.openFolder(keepDir, true)
	if err != nil {
		return false, err
	}
	defer kept.Close()
	f, err := kept.OpenFile(keepBase, os.O_WRONLY|os.O_CREATE|os.O_EXCL|localOpenNonblock, b.cfg.filePerm)
	if errors.Is(err, fs.ErrExist) {
		if there, lerr := kept.Lstat(keepBase); lerr == nil && os.SameFile(there, old) {
			return false, errKeepIsTheFile
		}
		if err = kept.Remove(keepBase); err != nil {
			return false, err
		}
		f, err = kept.OpenFile(keepBase, os.O_WRONLY|os.O_CREATE|os.O_EXCL|localOpenNonblock, b.cfg.filePerm)
	}
	if err != nil {
		return false, err
	}
	swapped := false
	defer func() {
		if !swapped {
			_ = kept.Remove(keepBase)
		}
	}()
	if err := writeAndClose(f, content); err != nil {
		return false, err
	}
	keptDir, err := kept.OpenFile(".", os.O_RDONLY|localOpenNonblock, 0)
	if err != nil {
		return false, err
	}
	defer keptDir.Close()
	d, err := folder.OpenFile(".", os.O_RDONLY|localOpenNonblock, 0)
	if err != nil {
		return false, err
	}
	defer d.Close()
	if swapped, err = swapNames(keptDir, keepBase, d, base); !swapped || err != nil {
		swapped = false
		return false, err
	}
	if localSyncDirs {
		return true, fsync(d)
	}
	return true, nil
}

// copyKeeping copies the file base in folder to keep, then replaces base with content.
func (b *Backend) copyKeeping(ctx context.Context, folder *os.Root, base, keep, content string) error {
	raw, err := folder.ReadFile(base)
	if err == nil {
		err = b.WriteOnce(ctx, &filesystem.WriteRequest{FilePath: keep, Content: string(raw)})
	}
	if err != nil {
		return err
	}
	return b.replace(folder, base, content, b.cfg.filePerm)
}

// KeepsFor reports whether v is b itself (driver.Keeper).
func (b *Backend) KeepsFor(v any) bool { return v == any(b) }

// swapNames is exchange; tests take the path of a platform without it.
var swapNames = exchange

// errKeepIsTheFile refuses a WriteKeeping whose keep path names the file it writes.
var errKeepIsTheFile = errors.New("cannot keep a file at its own path")

// errNotSwappedHere is exchange's error where these two files cannot swap names but others
// may: WriteKeeping copies this once.
var errNotSwappedHere = errors.New("these files cannot swap names")

// WriteOnce writes a file that is written once and never rewritten, without the temp file
// and the two syncs of Write: a crash may leave it missing or cut short (driver.OnceWriter).
func (b *Backend) WriteOnce(ctx context.Context, req *filesystem.WriteRequest) error {
	const op = "write"
	folder, _, base, err := b.writeTarget(ctx, req.FilePath)
	if err != nil {
		return err
	}
	defer folder.Close()
	// A fresh name only: anything already there (a link above all) is replaced by Write.
	f, err := folder.OpenFile(base, os.O_WRONLY|os.O_CREATE|os.O_EXCL|localOpenNonblock, b.cfg.filePerm)
	if errors.Is(err, fs.ErrExist) {
		return b.Write(ctx, req)
	}
	if err != nil {
		return b.wrap(op, req.FilePath, err)
	}
	_, err = io.WriteString(f, req.Content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return b.wrap(op, req.FilePath, err)
	}
	return nil
}

// writeTarget opens the folder of a file to write (created when missing) and checks that
// what is at the file's path may be replaced; the caller closes the folder.
func (b *Backend) writeTarget(ctx context.Context, virtual string) (folder *os.Root, dir, base string, err error) {
	const op = "write"
	rel, dir, base, err := b.fileTarget(ctx, op, virtual)
	if err != nil {
		return nil, "", "", err
	}
	if folder, err = b.openFolder(dir, true); err != nil {
		return nil, "", "", b.wrap(op, virtual, err)
	}
	if err := b.checkTarget(folder, rel, base); err != nil {
		folder.Close()
		return nil, "", "", b.wrap(op, virtual, err)
	}
	return folder, dir, base, nil
}

// fileTarget checks ctx and maps the virtual path of a file to write or delete to its
// root-relative path, folder and base name; the root itself is not a file.
func (b *Backend) fileTarget(ctx context.Context, op, virtual string) (rel, dir, base string, err error) {
	if err := ctx.Err(); err != nil {
		return "", "", "", err
	}
	if rel, err = localRel(op, virtual); err != nil {
		return "", "", "", err
	}
	if rel == "." {
		return "", "", "", b.wrap(op, virtual, errors.New("names the root folder, not a file"))
	}
	dir, base = localSplit(rel)
	return rel, dir, base, nil
}

// openFolder opens the folder dir ("." for the root) as a Root of its own, so every step of
// a write or delete happens in that one folder even if it is renamed meanwhile. With create,
// a missing folder is created with its parents. The path is opened as "dir/.", which only a
// folder can satisfy: a named pipe in its place is never opened.
func (b *Backend) openFolder(dir string, create bool) (*os.Root, error) {
	name := "."
	if dir != "." {
		name = dir + "/."
	}
	folder, err := b.root.OpenRoot(name)
	if create && dir != "." && errors.Is(err, fs.ErrNotExist) {
		if err = b.root.MkdirAll(dir, b.cfg.dirPerm); err == nil {
			folder, err = b.root.OpenRoot(name)
		}
	}
	return folder, err
}

// writeAndClose writes content, syncs it to stable storage and closes f.
func writeAndClose(f *os.File, content string) error {
	_, err := io.WriteString(f, content)
	if err == nil {
		err = fsync(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// checkTarget accepts a missing file, a regular file, or a symbolic link that stays under
// the root (which the rename replaces); anything else cannot be overwritten by a plan.
func (b *Backend) checkTarget(folder *os.Root, rel, base string) error {
	fi, err := folder.Lstat(base)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		// Resolved from the root, not the folder: a link may lead to another folder.
		if _, err := b.root.Stat(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %w", describeMode(fi.Mode()), driver.ErrNotRegularFile)
	}
	return nil
}

// createTemp creates a new, empty temp file next to base. Its name starts with "." and
// contains ".tmp-", so it can never be a plan name, and LsInfo never lists it.
func (b *Backend) createTemp(folder *os.Root, base string, perm fs.FileMode) (*os.File, string, error) {
	if len(base) > 100 {
		base = base[:100]
	}
	for attempt := 0; ; attempt++ {
		tmp := "." + base + localTempMark + strconv.FormatUint(rand.Uint64(), 36)
		f, err := folder.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|localOpenNonblock, perm)
		if err == nil {
			return f, tmp, nil
		}
		if !errors.Is(err, fs.ErrExist) || attempt == 9 {
			return nil, "", err
		}
	}
}

// Delete removes the entry at the path, whatever it is, so that nothing can keep a name
// stuck: a file, a symbolic link (never what it leads to), a pipe, a socket, or a folder
// with everything in it. A missing entry is not an error. The folder is synced, so the
// removal survives a power failure.
func (b *Backend) Delete(ctx context.Context, req *plantask.DeleteRequest) error {
	return b.remove(ctx, req.FilePath, true)
}

// DeleteLazily is Delete of each path without the sync of its folder (driver.LazyDeleter):
// after a crash some may be back. It stops at the first failure.
func (b *Backend) DeleteLazily(ctx context.Context, paths ...string) error {
	for _, p := range paths {
		if err := b.remove(ctx, p, false); err != nil {
			return err
		}
	}
	return nil
}

// remove is Delete, which syncs the folder when durable.
func (b *Backend) remove(ctx context.Context, path string, durable bool) error {
	const op = "delete"
	_, dir, base, err := b.fileTarget(ctx, op, path)
	if err != nil {
		return err
	}
	folder, err := b.openFolder(dir, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return b.wrap(op, path, err)
	}
	defer folder.Close()
	fi, err := folder.Lstat(base)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return b.wrap(op, path, err)
	}
	if fi.IsDir() {
		err = folder.RemoveAll(base)
	} else {
		err = folder.Remove(base)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return b.wrap(op, path, err)
	}
	if !durable {
		return nil
	}
	if err := syncFolder(folder); err != nil {
		return b.wrap(op, path, err)
	}
	return nil
}

// Rename moves the file at from to to atomically, replacing what is there, creates to's
// folder when missing, and with keep >= 0 then truncates the moved file to keep bytes. It
// allocates no data blocks, so it works on a full disk as long as the folder exists. Only
// regular files are moved.
func (b *Backend) Rename(ctx context.Context, from, to string, keep int64) error {
	const op = "rename"
	fromRel, fromDir, _, err := b.fileTarget(ctx, op, from)
	if err != nil {
		return err
	}
	toRel, toDir, _, err := b.fileTarget(ctx, op, to)
	if err != nil {
		return err
	}
	if fi, err := b.root.Lstat(fromRel); err != nil {
		return b.wrap(op, from, err)
	} else if !fi.Mode().IsRegular() {
		return b.wrap(op, from, fmt.Errorf("%s: %w", describeMode(fi.Mode()), driver.ErrNotRegularFile))
	} else if hardLinked(fi) && keep >= 0 {
		// Cutting it would cut its other names too: it moves as a copy of its own.
		if err := b.unlink(fromRel, fromDir, fi); err != nil {
			return b.wrap(op, from, err)
		}
	}
	if toDir != "." {
		if err := b.root.MkdirAll(toDir, b.cfg.dirPerm); err != nil {
			return b.wrap(op, to, err)
		}
	}
	if fi, err := b.root.Lstat(toRel); err == nil && fi.IsDir() {
		if err := b.root.RemoveAll(toRel); err != nil {
			return b.wrap(op, to, err)
		}
	}
	if err := b.root.Rename(fromRel, toRel); err != nil {
		return b.wrap(op, to, err)
	}
	if keep >= 0 {
		f, err := b.root.OpenFile(toRel, os.O_WRONLY, 0)
		if err == nil {
			err = f.Truncate(keep)
			if serr := fsync(f); err == nil {
				err = serr
			}
			f.Close()
		}
		if err != nil {
			return b.wrap(op, to, err)
		}
	}
	for _, dir := range []string{fromDir, toDir} {
		folder, err := b.openFolder(dir, false)
		if err != nil {
			return b.wrap(op, to, err)
		}
		err = syncFolder(folder)
		folder.Close()
		if err != nil {
			return b.wrap(op, to, err)
		}
	}
	return nil
}

// unlink gives the file at rel, in folder dir, whose info is fi, a file of its own with its
// bytes and mode, so that what is then done to it leaves its other names alone.
func (b *Backend) unlink(rel, dir string, fi fs.FileInfo) error {
	raw, err := b.root.ReadFile(rel)
	if err != nil {
		return err
	}
	folder, err := b.openFolder(dir, false)
	if err != nil {
		return err
	}
	defer folder.Close()
	return b.replace(folder, path.Base(rel), string(raw), fi.Mode().Perm())
}

// syncFolder makes the folder's entries (a rename, a removal) durable.
func syncFolder(folder *os.Root) error {
	if !localSyncDirs {
		return nil
	}
	d, err := folder.OpenFile(".", os.O_RDONLY|localOpenNonblock, 0)
	if err != nil {
		return err
	}
	err = fsync(d)
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// noteSweep records that dir was just scanned for orphaned temp files.
func (b *Backend) noteSweep(dir string) {
	b.mu.Lock()
	b.lastSweep[dir] = time.Now()
	b.mu.Unlock()
}

// sweep removes orphaned temp files from the folder dir, at most once a minute per folder,
// so a writer that crashed between creating its temp file and renaming it leaves no lasting
// litter.
func (b *Backend) sweep(folder *os.Root, dir string) {
	now := time.Now()
	b.mu.Lock()
	due := now.Sub(b.lastSweep[dir]) >= localSweepEvery
	if due {
		b.lastSweep[dir] = now
	}
	b.mu.Unlock()
	if !due {
		return
	}
	f, err := folder.OpenFile(".", os.O_RDONLY|localOpenNonblock, 0)
	if err != nil {
		return
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	for _, name := range names {
		if isLocalTemp(name) {
			removeIfStale(folder, name)
		}
	}
}

// removeIfStale removes a temp file last modified more than 10 minutes ago: no live writer
// keeps one that long. Errors are ignored; the next sweep tries again.
func removeIfStale(folder *os.Root, name string) {
	fi, err := folder.Lstat(name)
	if err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > localStaleTemp {
		_ = folder.Remove(name)
	}
}

// wrap turns an error about vpath into one that names the operation and the virtual path;
// an escape from the root becomes driver.ErrOutsideRoot, a missing file keeps fs.ErrNotExist.
func (b *Backend) wrap(op, vpath string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		err = le.Err
	}
	if errors.Is(err, b.escapes) {
		return outsideRoot(op, vpath, "a symbolic link on the way leads outside the root or is absolute")
	}
	return fmt.Errorf("local backend: %s %s: %w", op, quote(vpath), err)
}

func outsideRoot(op, vpath, why string) error {
	return fmt.Errorf("local backend: %s %s: %s: %w", op, quote(vpath), why, driver.ErrOutsideRoot)
}

// localRel maps a virtual path to a clean, slash-separated path relative to the root ("."
// for the root itself), refusing anything that could name a place outside it. Symbolic links are left to
// os.Root, which refuses those that lead outside.
func localRel(op, vpath string) (string, error) {
	switch {
	case strings.IndexByte(vpath, 0) >= 0:
		return "", outsideRoot(op, vpath, "contains a NUL byte")
	case strings.IndexByte(vpath, '\\') >= 0:
		return "", outsideRoot(op, vpath, `contains a backslash; virtual paths use "/"`)
	case len(vpath) > maxLocalPathLen:
		return "", outsideRoot(op, vpath, fmt.Sprintf("is %d bytes, over %d", len(vpath), maxLocalPathLen))
	}
	p := strings.TrimLeft(vpath, "/")
	if p == "" {
		return ".", nil
	}
	p = path.Clean(p)
	if p == "." {
		return p, nil
	}
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", outsideRoot(op, vpath, `climbs above the root with ".."`)
	}
	if !filepath.IsLocal(filepath.FromSlash(p)) {
		return "", outsideRoot(op, vpath, "is not a local path on this system")
	}
	return p, nil
}

// localJoin joins a root-relative folder ("." for the root) and a name.
func localJoin(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}

// localSplit splits a clean root-relative path into its folder ("." for the root) and name.
func localSplit(rel string) (dir, base string) {
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		return ".", rel
	}
	return rel[:i], rel[i+1:]
}

// isLocalTemp reports whether name is a temp file of Write.
func isLocalTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, localTempMark)
}

func describeMode(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "is a folder"
	case m&fs.ModeNamedPipe != 0:
		return "is a named pipe"
	case m&fs.ModeSocket != 0:
		return "is a socket"
	case m&fs.ModeDevice != 0:
		return "is a device"
	case m&fs.ModeSymlink != 0:
		return "is a symbolic link"
	default:
		return "is a special file (" + m.Type().String() + ")"
	}
}

// quote renders a path for an error message: quoted, and cut to 80 bytes.
func quote(s string) string {
	if len(s) > 80 {
		cut := 80
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return strconv.Quote(s)
}
