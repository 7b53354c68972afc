package driver_test

import (
	"github.com/cloudwego/eino/adk/middlewares/plantask"

	"github.com/einoplan/plan/driver"
)

// A backend written for Eino's plantask is a driver.Backend as it is.
var _ driver.Backend = plantask.Backend(nil)
