package driver

import (
	"context"
	"time"
)

// FeedBuffer is how many events a Feed holds for a receiver that is not reading; past that
// it drops them and sends one Resync once there is room again.
const FeedBuffer = 256

// Listener is a Watcher's connection to its storage's change notifications, as Feed drives
// it. Feed calls its methods from one goroutine, never two at once.
type Listener interface {
	// Receive waits a while for the next notification and returns the event it stands for,
	// after reading the file back (a notification is only a hint: the storage decides).
	// deliver is false when nothing is to be sent: no notification came and the connection
	// still answers, or the storage contradicts it. An error means the connection is lost.
	// Receive returns soon after ctx ends.
	Receive(ctx context.Context) (ev FileEvent, deliver bool, err error)
	// Listen opens a new connection in place of the lost one; an error means it is to be
	// tried again.
	Listen(ctx context.Context) error
	// Close closes the current connection, if any; Receive is not called again before a
	// successful Listen.
	Close()
}

// Feed drives l until ctx ends and returns the channel a WatchFiles hands out. Events reach
// it in the order Receive returned them. When the connection is lost, Feed closes it, calls
// Listen again (backing off, up to a second apart, while it fails), then sends one FileEvent
// with Resync set: every change announced after Feed is called is delivered or covered by a
// Resync. A receiver FeedBuffer events behind gets one Resync in place of those it missed,
// and never holds up Receive. When ctx ends, l is closed, then the channel.
func Feed(ctx context.Context, l Listener) <-chan FileEvent {
	in := make(chan FileEvent)
	out := make(chan FileEvent, FeedBuffer)
	go listen(ctx, l, in)
	go forward(ctx, in, out)
	return out
}

// listen turns l's notifications into events on in until ctx ends; a lost connection is
// replaced, then reported as a Resync.
func listen(ctx context.Context, l Listener, in chan<- FileEvent) {
	defer close(in)
	defer l.Close()
	for {
		ev, deliver, err := l.Receive(ctx)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			if deliver && !send(ctx, in, ev) {
				return
			}
			continue
		}
		l.Close()
		if !relisten(ctx, l) {
			return
		}
		if !send(ctx, in, FileEvent{Resync: true}) {
			return
		}
	}
}

// relisten calls Listen until it succeeds, backing off; false when ctx ended first.
func relisten(ctx context.Context, l Listener) bool {
	for attempt := 1; ; attempt++ {
		if err := l.Listen(ctx); err == nil {
			return ctx.Err() == nil
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(min(time.Duration(attempt)*50*time.Millisecond, time.Second)):
		}
	}
}

func send(ctx context.Context, in chan<- FileEvent, ev FileEvent) bool {
	select {
	case in <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

// forward passes events from in to out without ever blocking on out: an event that finds
// out full is dropped, and one Resync follows as soon as out has room. It closes out once
// in is closed, after the Listener.
func forward(ctx context.Context, in <-chan FileEvent, out chan<- FileEvent) {
	defer close(out)
	behind := false
	for {
		var owed chan<- FileEvent
		if behind {
			owed = out
		}
		select {
		case <-ctx.Done():
			for range in {
			}
			return
		case owed <- FileEvent{Resync: true}:
			behind = false
		case ev, ok := <-in:
			if !ok {
				return
			}
			if behind {
				continue
			}
			select {
			case out <- ev:
			default:
				behind = true
			}
		}
	}
}
