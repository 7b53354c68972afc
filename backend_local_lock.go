//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

package plan

import (
	"context"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"sync"
	"syscall"
	"time"
)

var _ Locker = (*LocalBackend)(nil)

// Lock takes an exclusive flock on the sentinel file <dir>/.plan.lock (created with the file
// mode, the folder with the folder mode, when missing) and returns the function that
// releases it. It waits until the lock is free or ctx ends.
//
// The lock excludes every other holder: other processes, other LocalBackend values, and
// other Lock calls of this one, since each holds its own open file. The kernel releases it
// when the holder's process dies, so a crash never leaves a folder locked. Locks are
// advisory: only writers that lock are excluded, and network file systems may not honour
// them.
func (b *LocalBackend) Lock(ctx context.Context, dir string) (unlock func(), err error) {
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
	if err := flockWait(ctx, f); err != nil {
		f.Close()
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		return nil, b.wrap(op, dir, err)
	}
	var once sync.Once
	return func() { once.Do(func() { f.Close() }) }, nil
}

// flockWait polls for an exclusive flock with a growing, jittered pause, so a waiter can
// give up when ctx ends, which a blocking flock cannot.
func flockWait(ctx context.Context, f *os.File) error {
	sc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	pause := 100 * time.Microsecond
	for {
		var lockErr error
		if err := sc.Control(func(fd uintptr) {
			for {
				lockErr = syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB)
				if lockErr != syscall.EINTR {
					return
				}
			}
		}); err != nil {
			return err
		}
		if lockErr == nil {
			return nil
		}
		if lockErr != syscall.EWOULDBLOCK {
			return lockErr
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
