package postgres

import "github.com/einoplan/plan/backends/backendtest"

// The raw file and feed helpers every backend's tests share.
var (
	mustWrite   = backendtest.MustWrite
	mustRead    = backendtest.MustRead
	mustDelete  = backendtest.MustDelete
	wantMissing = backendtest.WantMissing
	wantLs      = backendtest.WantLs
	next        = backendtest.NextEvent
	wantEvent   = backendtest.WantEvent
	short       = backendtest.ShortEvent
	mustWatch   = backendtest.MustWatch
)
