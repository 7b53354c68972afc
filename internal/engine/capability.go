package engine

import (
	"reflect"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/memfs"
)

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

// keepingOf returns v's keeping method set K when v offers it for itself: not when a wrapper
// only embeds a value that does (driver.Keeper), whose CompareAndSwap or Write it may change.
func keepingOf[K driver.Keeper](v any) K {
	if k, ok := v.(K); ok && k.KeepsFor(v) {
		return k
	}
	var none K
	return none
}

// memoryStamps is the folder stamper of the MemoryBackend b is or unwraps to.
func memoryStamps(b driver.Backend) (driver.FolderStamper, bool) {
	m, ok := capability[*memfs.Backend](b)
	if !ok {
		return nil, false
	}
	return memfs.Stamps(m), true
}
