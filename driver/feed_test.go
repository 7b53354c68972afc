package driver_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan/driver"
)

// scripted is a Listener that returns its steps in turn, then waits for ctx.
type scripted struct {
	mu      sync.Mutex
	steps   []step
	listens int
	closes  int
	waiting bool // Receive has run out of steps: every earlier event reached Feed's buffer
}

type step struct {
	ev      driver.FileEvent
	deliver bool
	err     error
}

func (s *scripted) Receive(ctx context.Context) (driver.FileEvent, bool, error) {
	s.mu.Lock()
	if len(s.steps) > 0 {
		st := s.steps[0]
		s.steps = s.steps[1:]
		s.mu.Unlock()
		return st.ev, st.deliver, st.err
	}
	s.waiting = true
	s.mu.Unlock()
	<-ctx.Done()
	return driver.FileEvent{}, false, ctx.Err()
}

func (s *scripted) Listen(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listens++
	if s.listens == 1 {
		return errors.New("server away")
	}
	return nil
}

func (s *scripted) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closes++
}

func write(p string) driver.FileEvent { return driver.FileEvent{Path: p, Content: p} }

func next(t *testing.T, ch <-chan driver.FileEvent) driver.FileEvent {
	t.Helper()
	select {
	case ev := <-ch:
		return ev
	case <-time.After(5 * time.Second):
		t.Fatal("no event")
		return driver.FileEvent{}
	}
}

func TestFeedDeliversInOrderAndResyncsOnceListeningAgain(t *testing.T) {
	l := &scripted{steps: []step{
		{ev: write("a"), deliver: true},
		{ev: write("dropped"), deliver: false},
		{ev: write("b"), deliver: true},
		{err: errors.New("connection lost")},
		{ev: write("c"), deliver: true},
	}}
	ctx, cancel := context.WithCancel(t.Context())
	ch := driver.Feed(ctx, l)
	require.Equal(t, write("a"), next(t, ch))
	require.Equal(t, write("b"), next(t, ch))
	require.Equal(t, driver.FileEvent{Resync: true}, next(t, ch))
	require.Equal(t, write("c"), next(t, ch))
	cancel()
	for range ch {
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	require.Equal(t, 2, l.listens, "a failed Listen is tried again")
	require.Equal(t, 2, l.closes, "the lost connection and the last one are closed")
}

func TestFeedSendsOneResyncForWhatAReceiverFallingBehindMissed(t *testing.T) {
	var steps []step
	for range driver.FeedBuffer + 10 {
		steps = append(steps, step{ev: write("f"), deliver: true})
	}
	l := &scripted{steps: steps}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ch := driver.Feed(ctx, l)
	require.Eventually(t, func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.waiting
	}, 5*time.Second, time.Millisecond, "Receive is never held up by the receiver")
	for range driver.FeedBuffer {
		require.Equal(t, write("f"), next(t, ch))
	}
	require.Equal(t, driver.FileEvent{Resync: true}, next(t, ch))
	select {
	case ev := <-ch:
		t.Fatalf("after the Resync: %+v", ev)
	case <-time.After(50 * time.Millisecond):
	}
}
