package redisbackend

import (
	"github.com/einoplan/plan/backends/backendtest"
	"github.com/einoplan/plan/plantest"
)

// The raw file and feed helpers every backend's tests share.
var (
	mustWrite   = backendtest.MustWrite
	mustRead    = backendtest.MustRead
	wantMissing = backendtest.WantMissing
	ls          = backendtest.Ls
	wantLs      = backendtest.WantLs
	next        = backendtest.NextEvent
	wantEvent   = backendtest.WantEvent
	mustWatch   = backendtest.MustWatch
	resultCode  = plantest.ErrorCode
)
