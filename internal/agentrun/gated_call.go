package agentrun

import (
	"github.com/cloudwego/eino/schema"
	"github.com/einoplan/plan/api"
)

func init() {
	schema.RegisterName[GatedCall]("einoplan_gated_call") // events are kept in checkpoints
}

// What the gate and the digest hand to a host, declared in package api.
type (
	GatedCall    = api.GatedCall
	DigestConfig = api.DigestConfig
)
