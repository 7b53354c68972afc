package plan_test

import (
	"github.com/cloudwego/eino/adk/middlewares/plantask"

	"github.com/einoplan/plan"
)

// A backend written for Eino's plantask is a plan.Backend as it is.
var _ plan.Backend = plantask.Backend(nil)
