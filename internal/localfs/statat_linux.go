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

// statEntries calls each with what lstat reports of every name in the open folder dir,
// one fstatat per name against dir's descriptor: the names come from dir itself and hold
// no separator, so nothing can lead out of it, and the per-call walk of os.Root is spared.
// A name gone since the folder was read is skipped; the first other failure stops it.
func statEntries(dir *os.File, folder *os.Root, names []string, each func(name string, st entryStat) error) error {
	if slices.ContainsFunc(names, notPlain) {
		return statEntriesIn(folder, names, each)
	}
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
				mod:   time.Unix(int64(st.Mtim.Sec), int64(st.Mtim.Nsec)),
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
