package engine

import (
	"context"
	"reflect"
	"runtime"
	"sync"
	"weak"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/keyedmutex"
)

// sharedState is what every Store on one storage folder shares in a process: the locks and
// the list cache. The registry holds it weakly, so a dropped backend leaves nothing behind.
type sharedState struct {
	// sem serialises calls to a driver.Locker that is not a driver.PlanLocker, whose lock covers the folder.
	sem     chan struct{}
	names   keyedmutex.Map
	cacheMu sync.Mutex
	cache   map[string]*cachedSummary
	listGen uint64
	// sorted is the listing that finished last, in name order; a slower listing may have
	// replaced a newer one, and it may hold entries the cache has since dropped. A listing
	// takes the order of the entries it finds in the cache from it when it holds them all,
	// and returns it itself while the same entries come back unchanged.
	sorted []*cachedSummary
	// summaries are the summaries of the listing summariesFor, made last (store_list.go).
	summaries    []*document.Summary
	summariesFor []*cachedSummary
	// stamped is the folder stamp that vouches for sorted, nil when none does (store_stamp.go).
	stamped *stampedListing
	// key is the storage's approval key once read (approval_seal.go).
	keyMu sync.Mutex
	key   []byte
	// known is, per plan, the history entries this process knows without listing
	// (history_known.go).
	knownMu sync.Mutex
	known   map[string]*knownEntries
}

func newSharedState() *sharedState {
	return &sharedState{sem: make(chan struct{}, 1), cache: map[string]*cachedSummary{}, known: map[string]*knownEntries{}}
}

// storageKey identifies a folder of one storage, whatever Go value reaches it.
type storageKey struct {
	typ   reflect.Type
	addr  uintptr // pointer-shaped backends: the address, which a live Store keeps in use
	value any     // other comparable backends: the value itself
	named string  // backends that name their storage (a LocalBackend's root)
	dir   string
}

// storageNamer is implemented by built-in backends whose storage outlives the Go value: two
// LocalBackends on one root are one storage.
type storageNamer interface {
	StorageName() string
}

var registry = struct {
	sync.Mutex
	states map[storageKey]weak.Pointer[sharedState]
}{states: map[storageKey]weak.Pointer[sharedState]{}}

// sharedFor returns the process-wide state of the folder dir of backend. A backend whose
// storage cannot be recognised again (a value of a type that is not comparable) gets state of
// its own; Config.Store shares one Store explicitly in that case.
func sharedFor(backend driver.Backend, dir string) *sharedState {
	key, ok := KeyOf(Innermost(backend))
	if !ok {
		return newSharedState()
	}
	key.dir = dir
	registry.Lock()
	defer registry.Unlock()
	if wp, ok := registry.states[key]; ok {
		if st := wp.Value(); st != nil {
			return st
		}
	}
	st := newSharedState()
	wp := weak.Make(st)
	registry.states[key] = wp
	runtime.AddCleanup(st, func(k storageKey) {
		registry.Lock()
		if registry.states[k] == wp {
			delete(registry.states, k)
		}
		registry.Unlock()
	}, key)
	return st
}

// PlansFoldersOn returns dir and the folders of the other live Stores of this process on
// backend's storage.
func PlansFoldersOn(backend driver.Backend, dir string) []string {
	dirs := []string{dir}
	key, ok := KeyOf(Innermost(backend))
	if !ok {
		return dirs
	}
	registry.Lock()
	defer registry.Unlock()
	for k, wp := range registry.states {
		other := k.dir
		k.dir = ""
		if k == key && other != dir && wp.Value() != nil {
			dirs = append(dirs, other)
		}
	}
	return dirs
}

// KeyOf identifies the storage of an innermost backend. A pointer is recognised by its
// address: the Stores holding the state keep the pointer alive, so the address cannot be
// reused while the entry is in use.
func KeyOf(b any) (storageKey, bool) {
	if n, ok := b.(storageNamer); ok {
		return storageKey{typ: reflect.TypeOf(b), named: n.StorageName()}, true
	}
	v := reflect.ValueOf(b)
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.UnsafePointer:
		return storageKey{typ: v.Type(), addr: v.Pointer()}, true
	}
	if !v.Comparable() { // also false for an interface field holding a map or a slice
		return storageKey{}, false
	}
	return storageKey{typ: v.Type(), value: b}, true
}

// maxUnwrap bounds the wrapper chain, so a wrapper that unwraps to itself cannot loop.
const maxUnwrap = 16

// Innermost follows Unwrap, and Backends embedded as anonymous fields, to the storage.
func Innermost(b driver.Backend) driver.Backend {
	for range maxUnwrap {
		next := unwrapOnce(b)
		if next == nil {
			return b
		}
		b = next
	}
	return b
}

func unwrapOnce(b driver.Backend) driver.Backend {
	if u, ok := b.(driver.Unwrapper); ok {
		return u.Unwrap()
	}
	return embeddedBackend(b)
}

// embeddedBackend is the Backend that b embeds as an anonymous field, or nil. A wrapper
// written that way may override any method (to add a prefix, say), so what it embeds
// tells only where its storage is, never which methods to call instead of its own.
func embeddedBackend(b driver.Backend) driver.Backend {
	v := reflect.ValueOf(b)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil
	}
	backendType := reflect.TypeFor[driver.Backend]()
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if !f.Anonymous || !f.IsExported() || !f.Type.Implements(backendType) {
			continue
		}
		fv := v.Field(i)
		if (fv.Kind() == reflect.Interface || fv.Kind() == reflect.Pointer) && fv.IsNil() {
			return nil
		}
		inner, _ := fv.Interface().(driver.Backend)
		return inner
	}
	return nil
}

// capability returns the first value along b's Unwrap chain that offers T. Only an explicit
// Unwrap says that the wrapped value may be called in the wrapper's place.
func capability[T any](b driver.Backend) (T, bool) {
	for range maxUnwrap + 1 {
		if c, ok := b.(T); ok {
			return c, true
		}
		u, ok := b.(driver.Unwrapper)
		if !ok || u.Unwrap() == nil {
			break
		}
		b = u.Unwrap()
	}
	var zero T
	return zero, false
}

// lockerOf is the driver.Locker of b's storage, found through embedded Backends too: taking the
// lock of what a wrapper stores in can only exclude more writers, never bypass the wrapper.
func lockerOf(b driver.Backend) (driver.Locker, bool) {
	for range maxUnwrap + 1 {
		if l, ok := b.(driver.Locker); ok {
			return l, true
		}
		if b = unwrapOnce(b); b == nil {
			break
		}
	}
	return nil, false
}

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
