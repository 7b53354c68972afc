package postgres

import (
	"errors"
	"fmt"

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
	if !errors.As(err, &pe) {
		return false
	}
	severity := pe.SeverityUnlocalized
	if severity == "" {
		severity = pe.Severity
	}
	return severity == "ERROR"
}
