package plan_test

import (
	"testing"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

func TestMemoryBackendConformance(t *testing.T) {
	plantest.RunBackendSuite(t, func(t *testing.T) plan.Backend { return plan.NewMemoryBackend() })
}
