// Package keyedmutex locks by key within a process: writers of distinct keys never wait for
// each other, and idle keys leave nothing behind.
package keyedmutex

import (
	"context"
	"sync"
)

// Map is a set of mutexes, one per key, made on demand. A key has an entry only while
// someone holds or waits for its lock, so the map never outgrows the lockers in flight, and
// a waiter can give up when its context ends. The zero Map is ready to use.
type Map struct {
	mu   sync.Mutex
	held map[string]*entry
}

// entry is a mutex that a waiter can abandon when its context ends; refs counts its
// holder and its waiters, and the entry leaves the map when it drops to zero. Nothing refers
// to it then, so it is reused.
type entry struct {
	sem  chan struct{}
	refs int
}

var pool = sync.Pool{New: func() any { return &entry{sem: make(chan struct{}, 1)} }}

// Lock takes name's lock, or gives up when ctx ends; the returned func, called once,
// releases it.
func (n *Map) Lock(ctx context.Context, name string) (func(), error) {
	n.mu.Lock()
	if n.held == nil {
		n.held = map[string]*entry{}
	}
	l := n.held[name]
	if l == nil {
		l = pool.Get().(*entry)
		n.held[name] = l
	}
	l.refs++
	n.mu.Unlock()
	select {
	case l.sem <- struct{}{}:
	case <-ctx.Done():
		n.drop(name, l)
		return nil, ctx.Err()
	}
	return func() {
		<-l.sem
		n.drop(name, l)
	}, nil
}

// drop gives up one reference to l.
func (n *Map) drop(name string, l *entry) {
	n.mu.Lock()
	l.refs--
	last := l.refs == 0
	if last {
		delete(n.held, name)
	}
	n.mu.Unlock()
	if last {
		pool.Put(l)
	}
}

// Len is the number of names with a holder or a waiter.
func (n *Map) Len() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.held)
}
