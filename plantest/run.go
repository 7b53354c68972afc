package plantest

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"
)

// RunAgent runs agent on query to the end with a plain Runner and returns the contents of
// the tool results it produced, in order: what the model was shown. An event carrying an
// error fails the test.
func RunAgent(t testing.TB, ctx context.Context, agent adk.Agent, query string) []string {
	t.Helper()
	return ToolResultsOf(t, adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, query))
}

// ToolResultsOf reads iter to the end and returns the contents of its tool results, in
// order. An event carrying an error fails the test.
func ToolResultsOf(t testing.TB, iter *adk.AsyncIterator[*adk.AgentEvent]) []string {
	t.Helper()
	var results []string
	for {
		ev, ok := iter.Next()
		if !ok {
			return results
		}
		if ev.Err != nil {
			t.Fatalf("agent %s: %v", ev.AgentName, ev.Err)
		}
		if ev.Output != nil && ev.Output.MessageOutput != nil {
			if msg := ev.Output.MessageOutput.Message; msg != nil && msg.Role == schema.Tool {
				results = append(results, msg.Content)
			}
		}
	}
}

// ErrorCode returns the code of a plan tool's error result ({"error":{"code":…}}), or ""
// for a success. A result that is not JSON fails the test.
func ErrorCode(t testing.TB, result string) string {
	t.Helper()
	var r struct {
		Error *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(result), &r); err != nil {
		t.Fatalf("a tool result that is not JSON: %v: %s", err, result)
	}
	if r.Error == nil {
		return ""
	}
	return r.Error.Code
}

// CheckPoints is an adk.CheckPointStore in memory, for runs that pause and resume within
// one test. The zero value is ready to use.
type CheckPoints struct {
	mu sync.Mutex
	m  map[string][]byte
}

// Get returns the checkpoint saved under id.
func (c *CheckPoints) Get(_ context.Context, id string) ([]byte, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.m[id]
	return b, ok, nil
}

// Set saves checkpoint b under id.
func (c *CheckPoints) Set(_ context.Context, id string, b []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string][]byte{}
	}
	c.m[id] = b
	return nil
}
