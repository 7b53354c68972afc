package engine

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
)

// errLostSwap: a conditional write found other bytes than those it was based on.
var errLostSwap = errors.New("plan: compare-and-swap lost a race")

// errNotLanded: a conditional write failed in transport and a read then found the bytes it
// was based on, so it did not land, or has not yet; the change starts again from a fresh read,
// and a write still in flight can then only fail its own condition.
var errNotLanded = errors.New("plan: a conditional write failed in transport and did not land")

// maxNotLanded bounds the fresh starts after transport failures; then the outcome is unknown.
const maxNotLanded = 2

// retryLostSwaps runs attempt again while it loses compare-and-swap races, from its read, so
// a guarded change then fails its revision check and an unguarded one lands on top.
func retryLostSwaps(name string, what func() string, attempt func() error) error {
	notLanded := 0
	for range maxSwapAttempts {
		err := attempt()
		if errors.Is(err, errNotLanded) {
			if notLanded++; notLanded > maxNotLanded {
				return unknownOutcome(what(), err)
			}
			continue
		}
		if !errors.Is(err, errLostSwap) {
			return err
		}
	}
	e := BackendError(what()+" (too many concurrent writers)", errLostSwap)
	e.Reason, e.Name = document.ReasonContention, name
	return e
}

// uncertainRetries are the pauses before each new try of a conditional write whose outcome
// a transport failure left unknown.
var uncertainRetries = [...]time.Duration{10 * time.Millisecond, 50 * time.Millisecond, 200 * time.Millisecond}

// commit writes content at p; with a driver.Swapper only if p still holds old (absent when
// nil). A keep path other than "" has the replaced file kept there by the same request
// (driver.KeepingSwapper, driver.KeepingWriter).
func (s *Store) commit(ctx context.Context, p string, old *string, content string, keep string) error {
	if ctx.Err() != nil {
		return Canceled(ctx)
	}
	req := &driver.WriteRequest{FilePath: p, Content: content}
	if s.swapper == nil {
		var err error
		if keep != "" {
			err = s.keepWriter.WriteKeeping(ctx, req, keep)
		} else {
			err = s.Backend.Write(ctx, req)
		}
		if err != nil {
			return BackendError("write "+p, err)
		}
		return nil
	}
	return s.settle(ctx, "write", func() (bool, error) {
		if keep != "" {
			return s.keeper.CompareAndSwapKeeping(ctx, req, old, keep)
		}
		return s.swapper.CompareAndSwap(ctx, req, old)
	}, func(raw string, exists bool) bool { return exists && raw == content }, p, old)
}

// remove deletes p; with a driver.Swapper only if p still holds old.
func (s *Store) remove(ctx context.Context, p, old string, special bool) error {
	if ctx.Err() != nil {
		return Canceled(ctx)
	}
	if s.swapper == nil || special {
		if err := s.Backend.Delete(ctx, &driver.DeleteRequest{FilePath: p}); err != nil && !IsNotExist(err) {
			return BackendError("delete "+p, err)
		}
		return nil
	}
	return s.settle(ctx, "delete", func() (bool, error) {
		return s.swapper.CompareAndDelete(ctx, &driver.DeleteRequest{FilePath: p}, old)
	}, func(_ string, exists bool) bool { return !exists }, p, &old)
}

// settle runs a conditional write and resolves an outcome that a transport failure left
// unknown before anything is reported, by reading what is stored (never by swapping again,
// which could act on what another writer did meanwhile): the new bytes mean it landed; the
// bytes it was based on mean it did not (yet), so the whole change starts again from a fresh
// read (errNotLanded).
// What still cannot be told is unknown_outcome, never a retryable backend_error, so nobody
// repeats a change that landed.
func (s *Store) settle(ctx context.Context, verb string, swap func() (bool, error), landed func(raw string, exists bool) bool, p string, old *string) error {
	ok, err := swap()
	if err == nil {
		if !ok {
			return errLostSwap
		}
		return nil
	}
	what := verb + " " + p
	if notSent(err) {
		return BackendError(what, err)
	}
	first := err
	for _, pause := range uncertainRetries {
		if ctx.Err() != nil {
			break
		}
		time.Sleep(pause)
		raw, exists, rerr := s.readRaw(ctx, p)
		switch {
		case rerr != nil:
			continue
		case landed(raw, exists):
			return nil
		case (old == nil && !exists) || (old != nil && exists && raw == *old):
			return fmt.Errorf("%w: %w", errNotLanded, first)
		}
		return unknownOutcome(what, first)
	}
	return unknownOutcome(what, first)
}

// notSent reports an error after which the request surely never reached the storage.
func notSent(err error) bool {
	return errors.Is(err, driver.ErrNotWritten) || errors.Is(err, syscall.ECONNREFUSED)
}

func unknownOutcome(what string, err error) *document.Error {
	e := document.Fail(document.Error{Code: document.CodeUnknownOutcome, Reason: document.ReasonUnknownOutcome})
	e.Message = "the plan storage failed to " + what + ", and whether it was done is unknown"
	e.Err = err
	return e
}
