package postgres

import (
	"testing"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/backends/backendtest"
)

// TestConformance runs the whole conformance suite, no case skipped, each case on a fresh
// Backend in a schema of its own.
func TestConformance(t *testing.T) {
	requireServer(t)
	backendtest.RunBackendSuite(t, func(t *testing.T) plan.Backend { return newBackend(t) })
}

// TestConformanceSharedSchema runs the suite with every case's Backend in one schema: the
// cases' plan folders share one table without seeing each other's files.
func TestConformanceSharedSchema(t *testing.T) {
	requireServer(t)
	shared := newBackend(t)
	backendtest.RunBackendSuite(t, func(t *testing.T) plan.Backend {
		return mustNew(t, newPool(t, serverURL, 0), WithSchema(shared.Schema()))
	}, backendtest.InFolder("/shared"))
}
