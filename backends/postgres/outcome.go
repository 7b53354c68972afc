package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/einoplan/plan/driver"
)

// classify adds driver.ErrNotWritten to the error of a mutating statement when nothing was
// written for sure:
//
//   - pgx reports the statement never left (pgconn.SafeToRetry), or no connection could be
//     made (pgconn.ConnectError);
//   - the server answered with an error of severity ERROR: the statement's implicit
//     transaction was rolled back, so it changed nothing.
//
// Anything else (the connection broke after the statement was sent, a FATAL such as the
// session being terminated, the context ending while waiting for the reply) may have come
// after the commit, so the outcome stays open.
func classify(err error) error {
	if notWritten(err) {
		return fmt.Errorf("%w: %w", driver.ErrNotWritten, err)
	}
	return err
}

func notWritten(err error) bool {
	if pgconn.SafeToRetry(err) {
		return true
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	var pe *pgconn.PgError
	return errors.As(err, &pe) && severityOf(pe) == "ERROR"
}

// severityOf is the error's severity in English whatever the server's language.
func severityOf(pe *pgconn.PgError) string {
	if pe.SeverityUnlocalized != "" {
		return pe.SeverityUnlocalized
	}
	return pe.Severity
}

// idempotent runs a statement that changes nothing (a read or a list) and runs it again
// while it fails only because its pooled connection broke (the server ended the session,
// the network dropped it) and ctx is still live. The pool drops a broken connection, so
// each attempt clears one; MaxConns+1 attempts outlast a pool whose every connection died.
func (b *Backend) idempotent(ctx context.Context, run func() error) error {
	attempts := int(b.pool.Config().MaxConns) + 1
	for {
		err := run()
		attempts--
		if err == nil || attempts == 0 || ctx.Err() != nil || !connectionBroke(err) {
			return err
		}
	}
}

// connectionBroke reports an error that ended the connection rather than the statement:
// a server error of severity FATAL or PANIC, or a failure below the protocol (no server
// answer at all). Errors of severity ERROR, no-rows and context errors are the
// statement's own.
func connectionBroke(err error) bool {
	if errors.Is(err, pgx.ErrNoRows) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return severityOf(pe) == "FATAL" || severityOf(pe) == "PANIC"
	}
	return true
}
