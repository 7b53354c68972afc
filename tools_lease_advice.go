package plan

import (
	"strings"
	"time"
)

// leaseAdvice is what the model reads after a refusal caused by a hold that runs out at
// end: when, and what to do then.
func (env *toolEnv) leaseAdvice(end time.Time) string {
	in := end.Sub(env.store.Now()).Round(time.Second)
	if in < time.Second {
		in = time.Second
	}
	return strings.NewReplacer("{at}", end.UTC().Format(time.RFC3339), "{in}", in.String()).Replace(env.texts["lease.until"])
}
