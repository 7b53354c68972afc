package plan

import (
	"context"
	"reflect"
	"sync"
)

// sharedState is what every Store on one (Backend, BaseDir) pair shares in a process.
type sharedState struct {
	sem     chan struct{} // a mutex that a waiter can abandon when its context ends
	cacheMu sync.Mutex
	cache   map[string]*cachedSummary
	listGen uint64
	// sorted is the last listing that came wholly from the cache, in name order: while the
	// same entries keep coming back unchanged, List reuses that order instead of sorting.
	sorted []*cachedSummary
}

type sharedKey struct {
	backend Backend
	dir     string
}

var sharedRegistry sync.Map // sharedKey → *sharedState

// sharedFor returns the process-wide state of (backend, dir). A backend whose dynamic type
// is not comparable cannot be recognised again, so it gets state of its own.
func sharedFor(backend Backend, dir string) *sharedState {
	fresh := &sharedState{sem: make(chan struct{}, 1), cache: map[string]*cachedSummary{}}
	if !reflect.TypeOf(backend).Comparable() {
		return fresh
	}
	st, _ := sharedRegistry.LoadOrStore(sharedKey{backend, dir}, fresh)
	return st.(*sharedState)
}

// lock takes the process lock, then the Backend's own lock when it offers one.
func (s *Store) lock(ctx context.Context) (func(), error) {
	select {
	case s.shared.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, canceled(ctx)
	}
	if s.locker == nil {
		return func() { <-s.shared.sem }, nil
	}
	unlock, err := s.locker.Lock(ctx, s.dir)
	if err != nil {
		<-s.shared.sem
		if ctx.Err() != nil {
			return nil, canceled(ctx)
		}
		return nil, backendError("lock the plans folder", err)
	}
	return func() { unlock(); <-s.shared.sem }, nil
}
