package redisbackend

import (
	"github.com/einoplan/plan/driver/drivertest"
	"github.com/einoplan/plan/plantest"
)

// The raw file and feed helpers every backend's tests share.
var (
	mustWrite   = drivertest.MustWrite
	mustRead    = drivertest.MustRead
	wantMissing = drivertest.WantMissing
	ls          = drivertest.Ls
	wantLs      = drivertest.WantLs
	next        = drivertest.NextEvent
	wantEvent   = drivertest.WantEvent
	mustWatch   = drivertest.MustWatch
	resultCode  = plantest.ErrorCode
)
