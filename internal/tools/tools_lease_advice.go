package tools

import (
	"strings"
	"time"
)

// leaseAdvice is what the model reads after a refusal caused by a hold that runs out at
// end: when, and what to do then.
func (env *ToolEnv) leaseAdvice(end time.Time) string {
	in := end.Sub(env.Store.Now()).Round(time.Second)
	if in < time.Second {
		in = time.Second
	}
	return strings.NewReplacer("{at}", end.UTC().Format(time.RFC3339), "{in}", in.String()).Replace(env.Texts["lease.until"])
}
