package engine

import (
	"context"

	"github.com/einoplan/plan/driver"
)

// lock takes the locks of one plan: the process lock of its name, then the Backend's own
// lock when it offers one. Plans of one folder never wait for each other, unless the
// Backend's driver.Locker is not a driver.PlanLocker: its lock covers the whole folder, and calls to it
// are serialised in the process too, as that driver.Locker may expect.
func (s *Store) lock(ctx context.Context, name string) (func(), error) {
	release, err := s.shared.names.Lock(ctx, name)
	if err != nil {
		return nil, Canceled(ctx)
	}
	if s.locker == nil {
		return release, nil
	}
	var unlock func()
	if pl, ok := s.locker.(driver.PlanLocker); ok {
		unlock, err = pl.LockPlan(ctx, s.Dir, name)
	} else {
		select {
		case s.shared.sem <- struct{}{}:
		case <-ctx.Done():
			release()
			return nil, Canceled(ctx)
		}
		if unlock, err = s.locker.Lock(ctx, s.Dir); err != nil {
			<-s.shared.sem
		} else {
			folderUnlock := unlock
			unlock = func() { folderUnlock(); <-s.shared.sem }
		}
	}
	if err != nil {
		release()
		if ctx.Err() != nil {
			return nil, Canceled(ctx)
		}
		return nil, BackendError("lock plan "+name, err)
	}
	return func() { unlock(); release() }, nil
}

// tombstonesLock names the lock of the tombstones' folder, which a delete of any plan may
// have to clear of a stray entry; no plan name starts with ".", so it is no plan's lock.
const tombstonesLock = ".deleted"

// lockFolderEntry takes the lock of an entry that every plan of the folder shares, for a
// caller that holds a plan's lock. Locks are always taken plan first, entry second, so they
// cannot deadlock. Under a driver.Locker that covers the folder, the caller holds it already.
func (s *Store) lockFolderEntry(ctx context.Context, entry string) (func(), error) {
	if _, perPlan := s.locker.(driver.PlanLocker); s.locker != nil && !perPlan {
		return func() {}, nil
	}
	if wide, ok := s.locker.(folderWidePlanLocker); ok && wide.PlanLocksFolderWide() {
		return func() {}, nil // the plan's lock is the folder's: taking it again would wait forever
	}
	return s.lock(ctx, entry)
}

// folderWidePlanLocker is a driver.PlanLocker whose plan locks may be locks of the whole folder
// (LocalBackend where the kernel offers no open file description locks).
type folderWidePlanLocker interface {
	PlanLocksFolderWide() bool
}
