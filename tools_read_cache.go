package plan

import "sync"

// readCache keeps the read_plan result of each plan as last encoded, so reading a plan
// nobody changed costs a comparison instead of a summary and an encoding.
type readCache struct {
	mu      sync.Mutex
	results map[string]readCached
}

type readCached struct {
	plan Plan // Approval copied out, so that a caller cannot change it
	json string
}

// maxReadCache bounds the results kept; past it the cache starts again.
const maxReadCache = 1024

// get returns the result last encoded for a plan equal to p.
func (c *readCache) get(p *Plan) (string, bool) {
	c.mu.Lock()
	r, ok := c.results[p.Name]
	c.mu.Unlock()
	if !ok || !samePlan(&r.plan, p) {
		return "", false
	}
	return r.json, true
}

// put records json as the result for p.
func (c *readCache) put(p *Plan, json string) {
	c.mu.Lock()
	if c.results == nil || len(c.results) >= maxReadCache {
		c.results = make(map[string]readCached)
	}
	c.results[p.Name] = readCached{plan: *p.copy(), json: json}
	c.mu.Unlock()
}

// samePlan reports whether a and b are the same revision with the same fields throughout.
func samePlan(a, b *Plan) bool {
	x, y := *a, *b
	x.Approval, y.Approval = nil, nil
	if x != y || (a.Approval == nil) != (b.Approval == nil) {
		return false
	}
	return a.Approval == nil || *a.Approval == *b.Approval
}
