//go:build linux && (amd64 || arm64)

package localfs

import (
	"io/fs"
	"os"
	"slices"
	"syscall"
	"time"
	"unsafe"
)

// statEntries calls each with what lstat reports of every name in the open folder dir
// (folder as an os.Root). A name gone since the folder was read is skipped; the first other
// failure stops it. When every name is plain, each takes one fstatat against dir's
// descriptor, sparing the walk os.Root makes per call; otherwise all go through folder.
func statEntries(dir *os.File, folder *os.Root, names []string, each func(name string, st entryStat) error) error {
	if slices.ContainsFunc(names, notPlain) {
		return statEntriesIn(folder, names, each)
	}
	return fstatEntries(dir, names, each)
}

// fstatEntries is statEntries for plain names only: a plain name is one entry directly in
// dir, and AT_SYMLINK_NOFOLLOW keeps a link from being followed, so nothing leads out.
func fstatEntries(dir *os.File, names []string, each func(name string, st entryStat) error) error {
	conn, err := dir.SyscallConn()
	if err != nil {
		return err
	}
	var failed error
	var buf [maxPlainName + 1]byte
	err = conn.Control(func(fd uintptr) {
		var st syscall.Stat_t
		for _, name := range names {
			copy(buf[:], name)
			buf[len(name)] = 0
			var errno syscall.Errno
			for {
				_, _, errno = syscall.Syscall6(sysFstatat, fd, uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&st)), atSymlinkNoFollow, 0, 0)
				if errno != syscall.EINTR {
					break
				}
			}
			if errno == syscall.ENOENT {
				continue
			}
			if errno != 0 {
				failed = &fs.PathError{Op: "lstat", Path: name, Err: errno}
				return
			}
			if failed = each(name, entryStat{
				isDir: st.Mode&syscall.S_IFMT == syscall.S_IFDIR,
				size:  st.Size,
				mod:   time.Unix(st.Mtim.Unix()),
			}); failed != nil {
				return
			}
		}
	})
	if err != nil {
		return err
	}
	return failed
}

const atSymlinkNoFollow = 0x100
