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

// exchange swaps the names a, in the open folder dirA, and b, in dirB, in one atomic step
// (renameat2 with RENAME_EXCHANGE); false, with no error, where the file system or the
// kernel cannot.
func exchange(dirA *os.File, a string, dirB *os.File, b string) (bool, error) {
	pa, err := syscall.BytePtrFromString(a)
	if err != nil {
		return false, err
	}
	pb, err := syscall.BytePtrFromString(b)
	if err != nil {
		return false, err
	}
	_, _, errno := syscall.Syscall6(sysRenameat2, dirA.Fd(), uintptr(unsafe.Pointer(pa)), dirB.Fd(), uintptr(unsafe.Pointer(pb)), renameExchange, 0)
	runtime.KeepAlive(dirA)
	runtime.KeepAlive(dirB)
	switch errno {
	case 0:
		return true, nil
	case syscall.EINVAL, syscall.ENOSYS, syscall.EOPNOTSUPP:
		return false, nil // the kernel or the file system: the copy still works
	case syscall.EPERM, syscall.EXDEV:
		// A sandbox that filters the call, an append-only file, a mount between the two
		// folders: these two files cannot, others may.
		return false, errNotSwappedHere
	}
	return false, errno
}
