package engine

import (
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
	// (history_write.go).
	knownMu sync.Mutex
	known   map[string]*knownEntries
	// observed is what the host saw under each hold (observations.go).
	observed observationLog
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
