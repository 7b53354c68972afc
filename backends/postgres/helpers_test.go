package postgres

import "github.com/einoplan/plan/driver/drivertest"

// The raw file and feed helpers every backend's tests share.
var (
	mustWrite   = drivertest.MustWrite
	mustRead    = drivertest.MustRead
	mustDelete  = drivertest.MustDelete
	wantMissing = drivertest.WantMissing
	wantLs      = drivertest.WantLs
	next        = drivertest.NextEvent
	wantEvent   = drivertest.WantEvent
	short       = drivertest.ShortEvent
	mustWatch   = drivertest.MustWatch
)
