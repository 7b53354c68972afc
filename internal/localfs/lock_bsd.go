//go:build darwin || dragonfly || freebsd || illumos || netbsd || openbsd

package localfs

import "sync/atomic"

// rangeLocks is false: without open file description locks, LockPlan is Lock.
var rangeLocks = new(atomic.Bool)

// tryRangeLock is never called where rangeLocks is false.
func tryRangeLock(int, int64) (bool, error) { return false, errNoRangeLocks }
