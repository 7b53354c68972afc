package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWithoutEnvironmentSaysWhatToSet(t *testing.T) {
	var stdout, stderr bytes.Buffer
	env := map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}
	code := realMain(nil, func(k string) string { return env[k] }, &stdout, &stderr)
	require.Equal(t, 2, code)
	require.Empty(t, stdout.String())
	for _, want := range []string{"OPENAI_API_KEY", "OPENAI_MODEL", "OPENAI_BASE_URL", "missing OPENAI_API_KEY and OPENAI_MODEL"} {
		require.Contains(t, stderr.String(), want)
	}

	stderr.Reset()
	env["OPENAI_API_KEY"] = "key"
	require.Equal(t, 2, realMain(nil, func(k string) string { return env[k] }, &stdout, &stderr))
	require.Contains(t, stderr.String(), "realmodel: missing OPENAI_MODEL\n")
}

func TestBadFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, 2, realMain([]string{"-nope"}, func(string) string { return "" }, &stdout, &stderr))
	require.Contains(t, stderr.String(), "-nope")
}

// fakeEndpoint answers chat completions on the loopback interface like an OpenAI-compatible
// server whose model follows a script: the orchestrator (the request offering the task
// tool) and the worker each get the next call of their own script.
func fakeEndpoint(t *testing.T) *httptest.Server {
	t.Helper()
	type call struct{ name, args string }
	body := `# Release 1.0\n- [ ] Write the README\n- [ ] Tag v1.0.0\n`
	scripts := map[string][]call{
		"orchestrator": {
			{"plan_template", `{"goal":"release"}`},
			{"write_plan", `{"name":"release","content":"` + body + `","last_known_revision":0}`},
			{"task", `{"subagent_type":"worker","description":"Carry out steps 1 and 2 of plan release."}`},
			{"get_plan_status", `{"name":"release"}`},
			{"set_plan_status", `{"name":"release","status":"done","last_known_revision":5}`},
			{"", "Release 1.0 is planned and done."},
		},
		"worker": {
			{"read_plan", `{"name":"release"}`},
			{"update_plan_step", `{"name":"release","step":1,"status":"in_progress","last_known_revision":1}`},
			{"update_plan_step", `{"name":"release","step":1,"status":"completed","note":"README written","last_known_revision":2}`},
			{"update_plan_step", `{"name":"release","step":2,"status":"in_progress","last_known_revision":3}`},
			{"update_plan_step", `{"name":"release","step":2,"status":"completed","note":"tagged","last_known_revision":3}`},
			{"", "Both steps are completed."},
		},
	}
	var mu sync.Mutex
	next := map[string]int{}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string `json:"model"`
			Tools []struct {
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			} `json:"tools"`
		}
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer test-key" ||
			json.NewDecoder(r.Body).Decode(&req) != nil || req.Model != "test-model" {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		who := "worker"
		for _, tool := range req.Tools {
			if tool.Function.Name == "task" {
				who = "orchestrator"
			}
		}
		mu.Lock()
		i := next[who]
		next[who]++
		mu.Unlock()
		msg := map[string]any{"role": "assistant", "content": "done"}
		finish := "stop"
		if i < len(scripts[who]) {
			c := scripts[who][i]
			if c.name == "" {
				msg["content"] = c.args
			} else {
				msg["content"] = ""
				msg["tool_calls"] = []map[string]any{{"id": fmt.Sprintf("call_%s_%d", who, i), "type": "function",
					"function": map[string]string{"name": c.name, "arguments": c.args}}}
				finish = "tool_calls"
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-test", "object": "chat.completion", "created": 1, "model": req.Model,
			"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": finish}},
			"usage":   map[string]int{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
		})
	}))
}

func TestSessionAgainstLocalEndpoint(t *testing.T) {
	srv := fakeEndpoint(t)
	defer srv.Close()
	env := map[string]string{"OPENAI_API_KEY": "test-key", "OPENAI_MODEL": "test-model", "OPENAI_BASE_URL": srv.URL + "/v1"}
	var stdout, stderr bytes.Buffer
	code := realMain([]string{"-dir", t.TempDir(), "-goal", "Release 1.0"}, func(k string) string { return env[k] }, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	text := stdout.String()
	for _, want := range []string{
		"Goal: Release 1.0\n",
		"orchestrator → write_plan",
		"  [----------] 0/2 release r1 write\n",
		"worker → update_plan_step",
		"  [#####-----] 1/2 release r3 step\n",
		"  [##########] 2/2 release r5 step\n",
		"worker: Both steps are completed.\n",
		"  [##########] 2/2 release r6 status\n",
		"orchestrator: Release 1.0 is planned and done.\n",
		"Plan release: \"Release 1.0\", status done, revision 6, [##########] 2/2\n",
		"- [x] Tag v1.0.0 (@worker) — tagged — cost: 1+1 tokens, 1 call, 1 tool, ",
	} {
		require.Contains(t, text, want)
	}
	require.Equal(t, 6, strings.Count(text, " release r"), "one progress line per change")
	require.NotContains(t, text, `"error"`, "the worker's move from revision 3 applies: only its own step changed since")
}
