//go:build linux && (amd64 || arm64)

package localfs

import (
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// renameat2's number, which package syscall does not name on every architecture.
var sysRenameat2 = map[string]uintptr{"amd64": 316, "arm64": 276}[runtime.GOARCH]

const renameExchange = 2 // RENAME_EXCHANGE

// swapsNames reports that exchange can swap names here (where the file system allows).
const swapsNames = true

// exchange swaps the names a and b, two plain names in the open folder dir, in one atomic
// step (renameat2 with RENAME_EXCHANGE); false, with no error, where the file system or the
// kernel cannot.
func exchange(dir *os.File, a, b string) (bool, error) {
	pa, err := syscall.BytePtrFromString(a)
	if err != nil {
		return false, err
	}
	pb, err := syscall.BytePtrFromString(b)
	if err != nil {
		return false, err
	}
	fd := dir.Fd()
	_, _, errno := syscall.Syscall6(sysRenameat2, fd, uintptr(unsafe.Pointer(pa)), fd, uintptr(unsafe.Pointer(pb)), renameExchange, 0)
	runtime.KeepAlive(dir)
	switch errno {
	case 0:
		return true, nil
	case syscall.EINVAL, syscall.ENOSYS, syscall.EOPNOTSUPP, syscall.EPERM:
		return false, nil // EPERM: a sandbox that filters the call; the copy still works
	}
	return false, errno
}
