package tools

import (
	"encoding/json"
	"testing"

	"github.com/einoplan/plan/internal/document"
)

// A decision arrives in whichever form a host has it: the type, a pointer, a map or JSON.
// Data that names none of its fields is no decision, so it never approves or rejects.
func TestDecisionsInEveryFormAHostHasThem(t *testing.T) {
	content := "# Edited\n- [ ] one\n"
	want := document.ApprovalDecision{Approved: true, By: "ana", Content: &content}
	js := `{"approved":true,"by":"ana","content":"# Edited\n- [ ] one\n"}`
	for i, data := range []any{want, &want, map[string]any{"Approved": true, "By": "ana", "Content": content},
		[]byte(js), js, json.RawMessage(js)} {
		got, ok := decisionOf(data)
		if !ok || !got.Approved || got.By != "ana" || got.Content == nil || *got.Content != content {
			t.Errorf("form %d (%T): %+v, %v", i, data, got, ok)
		}
	}
	rejected, ok := decisionOf(map[string]any{"approved": false, "feedback": "add a rollback"})
	if !ok || rejected.Approved || rejected.Feedback != "add a rollback" {
		t.Errorf("a rejection as a map: %+v, %v", rejected, ok)
	}
	var nilPtr *document.ApprovalDecision
	for i, data := range []any{nil, nilPtr, "yes", "true", `{"ok":true}`, map[string]any{}, map[string]any{"x": 1}, 42, []byte("{")} {
		if d, ok := decisionOf(data); ok {
			t.Errorf("no decision %d (%#v) read as %+v", i, data, d)
		}
	}
}
