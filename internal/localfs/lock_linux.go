package localfs

import (
	"io"
	"sync/atomic"
	"syscall"
)

// fOFDSetlk is F_OFD_SETLK, the same number on every Linux architecture.
const fOFDSetlk = 37

// rangeLocks is true until the kernel refuses an open file description lock.
var rangeLocks = func() *atomic.Bool {
	var b atomic.Bool
	b.Store(true)
	return &b
}()

// tryRangeLock tries an exclusive open file description lock on the byte at off of fd's
// file without waiting; false means another open file holds it, errNoRangeLocks that the
// kernel or the file system has no such locks. The kernel releases it when
// the last descriptor of the open file is closed, so closing fd is the unlock.
func tryRangeLock(fd int, off int64) (bool, error) {
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: io.SeekStart, Start: off, Len: 1}
	for {
		err := syscall.FcntlFlock(uintptr(fd), fOFDSetlk, &lk)
		switch err {
		case nil:
			return true, nil
		case syscall.EINTR:
			continue
		case syscall.EAGAIN, syscall.EACCES:
			return false, nil
		case syscall.EINVAL, syscall.EOPNOTSUPP:
			return false, errNoRangeLocks
		}
		return false, err
	}
}
