package tools

import (
	"sync"

	"github.com/einoplan/plan/internal/document"
)

// readCache keeps the read_plan result of each plan as last encoded, so reading a plan
// nobody changed costs a comparison instead of a summary and an encoding.
type readCache struct {
	mu      sync.Mutex
	results map[string]readCached
	bytes   int // the results' JSON
}

type readCached struct {
	plan document.Plan // Approval copied out, so that a caller cannot change it
	json string
}

// The results kept are bounded in number and bytes; past either bound the cache starts
// again. A result over a sixteenth of the bytes is not kept.
const (
	maxReadCache      = 16384
	maxReadCacheBytes = 16 << 20
)

// get returns the result last encoded for a plan equal to p.
func (c *readCache) get(p *document.Plan) (string, bool) {
	c.mu.Lock()
	r, ok := c.results[p.Name]
	c.mu.Unlock()
	if !ok || !document.SamePlan(&r.plan, p) {
		return "", false
	}
	return r.json, true
}

// put records json as the result for p.
func (c *readCache) put(p *document.Plan, json string) {
	if len(json) > maxReadCacheBytes/16 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if was, ok := c.results[p.Name]; ok {
		c.bytes -= len(was.json)
	}
	if c.results == nil || len(c.results) >= maxReadCache || c.bytes+len(json) > maxReadCacheBytes {
		c.results, c.bytes = make(map[string]readCached), 0
	}
	c.results[p.Name] = readCached{plan: *document.CopyPlan(p), json: json}
	c.bytes += len(json)
}
