//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

package localfs

import (
	"context"
	"errors"
	"hash/fnv"
	"io/fs"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/einoplan/plan/driver"
)

var (
	_ driver.Locker     = (*Backend)(nil)
	_ driver.PlanLocker = (*Backend)(nil)
)

// Lock takes an exclusive flock on the sentinel file <dir>/.plan.lock (created with the file
// mode, the folder with the folder mode, when missing) and returns the function that
// releases it. It waits until the lock is free or ctx ends.
//
// The lock excludes every other holder: other processes, other Backend values, other
// Lock calls of this one, since each holds its own open file, and every LockPlan on dir. The
// kernel releases it when the holder's process dies, so a crash never leaves a folder
// locked. Locks are advisory: only writers that lock are excluded, and network file systems
// may not honour them.
func (b *Backend) Lock(ctx context.Context, dir string) (unlock func(), err error) {
	f, err := b.openLockFile(ctx, dir)
	if err != nil {
		return nil, err
	}
	if err := lockWait(ctx, f, func(fd int) (bool, error) { return tryFlock(fd, syscall.LOCK_EX) }); err != nil {
		return nil, b.lockFailed(ctx, f, dir, err)
	}
	return closeOnce(f), nil
}

// LockPlan locks the plan name of dir against every other LockPlan of that name and every
// Lock(dir), in any process. It holds a shared flock on the same sentinel file as Lock (so
// Lock(dir), including that of earlier versions of this package, excludes it) and, on Linux,
// an exclusive open file description lock (F_OFD_SETLK) on the one byte of that file that a
// 61-bit FNV-1a hash of name picks (planLockOffset). Plans of other names take other bytes,
// so they never wait for each other (two names of one hash would, which is harmless and, at
// 10,000 names, a chance under one in 10^10). Every plan shares the one sentinel file: locking leaves no file per plan
// behind, and nothing is ever unlinked that another process could hold. Where open file
// description locks are missing (other systems, Linux before 3.15), LockPlan is Lock(dir).
// Like Lock's, the lock dies with its process.
// planLocksFolderWide reports that LockPlan is Lock here: no open file description locks.
func (b *Backend) PlanLocksFolderWide() bool { return !rangeLocks.Load() }

func (b *Backend) LockPlan(ctx context.Context, dir, name string) (unlock func(), err error) {
	if !rangeLocks.Load() {
		return b.Lock(ctx, dir)
	}
	f, err := b.openLockFile(ctx, dir)
	if err != nil {
		return nil, err
	}
	off := planLockOffset(name)
	err = lockWait(ctx, f, func(fd int) (bool, error) {
		if held, err := tryFlock(fd, syscall.LOCK_SH); !held || err != nil {
			return held, err
		}
		held, err := tryRangeLock(fd, off)
		if !held || err != nil {
			// Let go of the folder too, so a waiter never holds part of what another needs.
			_ = syscall.Flock(fd, syscall.LOCK_UN)
		}
		return held, err
	})
	if errors.Is(err, errNoRangeLocks) {
		rangeLocks.Store(false)
		f.Close()
		return b.Lock(ctx, dir)
	}
	if err != nil {
		return nil, b.lockFailed(ctx, f, dir, err)
	}
	return closeOnce(f), nil
}

// errNoRangeLocks: the kernel refused an open file description lock as unknown.
var errNoRangeLocks = errors.New("open file description locks not supported")

// planLockOffset is the byte of the sentinel file that stands for name: a 62-bit hash, so
// the range stays far from any offset limit, odd for plan names and even for the names of
// folder entries (which start with "."), so a Store that holds a plan's lock and then takes
// an entry's can never wait for itself, whatever the plan's name.
func planLockOffset(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	off := int64(h.Sum64()>>2) &^ 1
	if !strings.HasPrefix(name, ".") {
		off |= 1
	}
	return off
}

// openLockFile opens dir's sentinel file, creating it and dir when missing.
func (b *Backend) openLockFile(ctx context.Context, dir string) (*os.File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	const op = "lock"
	rel, err := localRel(op, dir)
	if err != nil {
		return nil, err
	}
	sentinel := localJoin(rel, localLockName)
	f, err := b.root.OpenFile(sentinel, os.O_RDWR|os.O_CREATE|localOpenNonblock, b.cfg.filePerm)
	if errors.Is(err, fs.ErrNotExist) && rel != "." {
		if err = b.root.MkdirAll(rel, b.cfg.dirPerm); err == nil {
			f, err = b.root.OpenFile(sentinel, os.O_RDWR|os.O_CREATE|localOpenNonblock, b.cfg.filePerm)
		}
	}
	if err != nil {
		return nil, b.wrap(op, dir, err)
	}
	return f, nil
}

// lockFailed closes f and says why a lock was not taken: ctx's error when it ended.
func (b *Backend) lockFailed(ctx context.Context, f *os.File, dir string, err error) error {
	f.Close()
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	return b.wrap("lock", dir, err)
}

// closeOnce is the unlock function of a lock held through f: closing f releases it.
func closeOnce(f *os.File) func() {
	var once sync.Once
	return func() { once.Do(func() { f.Close() }) }
}

// tryFlock tries a flock of the given kind without waiting; false means another holds it.
func tryFlock(fd, how int) (bool, error) {
	for {
		err := syscall.Flock(fd, how|syscall.LOCK_NB)
		switch err {
		case nil:
			return true, nil
		case syscall.EINTR:
			continue
		case syscall.EWOULDBLOCK:
			return false, nil
		}
		return false, err
	}
}

// lockWait polls try on f's descriptor with a growing, jittered pause until it takes the
// lock, fails, or ctx ends, so a waiter can give up, which a blocking lock call cannot.
func lockWait(ctx context.Context, f *os.File, try func(fd int) (bool, error)) error {
	sc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	pause := 100 * time.Microsecond
	for {
		var held bool
		var lockErr error
		if err := sc.Control(func(fd uintptr) { held, lockErr = try(int(fd)) }); err != nil {
			return err
		}
		if lockErr != nil {
			return lockErr
		}
		if held {
			return nil
		}
		t := time.NewTimer(pause/2 + rand.N(pause))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		pause = min(pause*2, 10*time.Millisecond)
	}
}

// SetRangeLocks turns the per-plan byte-range locks on or off for the whole process, as a
// file system that refuses them would, and returns what puts them back. For tests of the
// folder-lock fallback.
func SetRangeLocks(on bool) (restore func()) {
	was := rangeLocks.Load()
	rangeLocks.Store(on)
	return func() { rangeLocks.Store(was) }
}
