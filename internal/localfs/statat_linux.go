//go:build linux && (amd64 || arm64)

package localfs

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// readFolder returns the names in the open folder dir (folder as an os.Root) that keep
// accepts, in the order the file system gives them, each with what lstat reports of it;
// names removed before their stat are left out. ctx is checked between batches.
//
// The names are read a batch at a time, and each full batch is statted by a goroutine of its
// own while the next is read, at most GOMAXPROCS batches at once, so the folder's reading
// and its stats overlap; the last, short batch (a small folder's only one) is statted here.
// A batch of plain names takes one fstatat per name against dir's descriptor, sparing the
// walk os.Root makes per call; any other batch goes through folder.
func readFolder(ctx context.Context, dir *os.File, folder *os.Root, keep func(name string) bool) ([]string, []entryStat, error) {
	conn, err := dir.SyscallConn()
	if err != nil {
		return nil, nil, err
	}
	var fd uintptr
	if err := conn.Control(func(raw uintptr) { fd = raw }); err != nil {
		return nil, nil, err
	}
	defer runtime.KeepAlive(dir) // fd is dir's: it stays open until every batch is done
	var wg sync.WaitGroup
	defer wg.Wait()
	running := make(chan struct{}, runtime.GOMAXPROCS(0))
	var batches []*statBatch
	for {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		read, err := dir.Readdirnames(namesPerBatch)
		if err != nil && err != io.EOF {
			return nil, nil, err
		}
		full := len(read) == namesPerBatch
		read = slices.DeleteFunc(read, func(name string) bool { return !keep(name) })
		if len(read) > 0 {
			b := &statBatch{names: read}
			batches = append(batches, b)
			if full {
				running <- struct{}{}
				wg.Go(func() {
					b.stat(fd, folder)
					<-running
				})
			} else {
				b.stat(fd, folder) // the folder's end: nothing left to read meanwhile
			}
		}
		if !full {
			break
		}
	}
	wg.Wait()
	return joinBatches(batches)
}

// namesPerBatch is what one getdents call returns for short names (an 8 KiB buffer), and
// enough system calls to be worth a goroutine.
const namesPerBatch = 256

func (b *statBatch) stat(fd uintptr, folder *os.Root) {
	if slices.ContainsFunc(b.names, notPlain) {
		b.stats, b.err = statNamesIn(folder, b.names)
		return
	}
	b.stats, b.err = fstatNames(fd, b.names)
}

// fstatNames lstats plain names with one fstatat each against the folder descriptor fd: a
// plain name is one entry directly in the folder, and AT_SYMLINK_NOFOLLOW keeps a link
// from being followed, so nothing leads out.
func fstatNames(fd uintptr, names []string) ([]entryStat, error) {
	out := make([]entryStat, len(names))
	var buf [maxPlainName + 1]byte
	var st syscall.Stat_t
	for i, name := range names {
		copy(buf[:], name)
		buf[len(name)] = 0
		var errno syscall.Errno
		for {
			_, _, errno = syscall.Syscall6(sysFstatat, fd, uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&st)), atSymlinkNoFollow, 0, 0)
			if errno != syscall.EINTR {
				break
			}
		}
		switch {
		case errors.Is(errno, syscall.ENOENT):
			out[i].gone = true
		case errno != 0:
			return nil, &fs.PathError{Op: "lstat", Path: name, Err: errno}
		default:
			out[i] = entryStat{isDir: st.Mode&syscall.S_IFMT == syscall.S_IFDIR, size: st.Size, mod: time.Unix(st.Mtim.Unix())}
		}
	}
	return out, nil
}

// maxPlainName is the longest name a folder entry can have on the file systems Linux knows.
const maxPlainName = 255

// notPlain reports whether name could reach beyond the folder it was read from.
func notPlain(name string) bool {
	return name == "" || name == "." || name == ".." || len(name) > maxPlainName || strings.ContainsAny(name, "/\x00")
}

const atSymlinkNoFollow = 0x100
