// Package acp reports plans as Agent Client Protocol (ACP) plan updates, so an ACP client
// (Zed, JetBrains, Qwen Code) draws a plan that agents keep with this module, live.
//
// The messages follow ACP v2 as its schema defines them in the @agentclientprotocol/sdk npm
// package, version 2.4.0: a SessionUpdate of kind "plan_update" carrying a plan of type
// "items", whose planId is the plan's name and whose entries are its steps, in order.
package acp

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/api"
)

// Entry statuses. ACP has no failed entry: a failed step is the custom status StatusFailed
// (custom statuses begin with "_"), and a skipped step is cancelled.
const (
	StatusPending    = "pending"
	StatusInProgress = "in_progress"
	StatusCompleted  = "completed"
	StatusCancelled  = "cancelled"
	StatusFailed     = "_failed"
)

// Priority is every entry's: a step has no priority of its own, and ACP requires one.
const Priority = "medium"

// MetaKey is the key under which an update's and an entry's "_meta" carry what ACP has no
// field for: the revision, the plan's title and status, a step's holder, evidence and cost.
const MetaKey = "einoplan"

type update struct {
	SessionUpdate string `json:"sessionUpdate"`
	Plan          items  `json:"plan"`
}

type items struct {
	Type    string              `json:"type"`
	PlanID  string              `json:"planId"`
	Entries []entry             `json:"entries"`
	Meta    map[string]planMeta `json:"_meta"`
}

type planMeta struct {
	Revision int64  `json:"revision"`
	Title    string `json:"title,omitempty"`
	Status   string `json:"status,omitempty"`
	// Approved is the revision a person approved, when the plan carries an approval.
	Approved int64 `json:"approvedRevision,omitempty"`
	// Waiting is the revision a run asked a person to approve, while it waits.
	Waiting int64 `json:"waitingRevision,omitempty"`
}

type entry struct {
	Content  string               `json:"content"`
	Priority string               `json:"priority"`
	Status   string               `json:"status"`
	Meta     map[string]entryMeta `json:"_meta"`
}

type entryMeta struct {
	Step           int            `json:"step"`
	Holder         string         `json:"holder,omitempty"`
	Evidence       string         `json:"evidence,omitempty"`
	AwaitingReview bool           `json:"awaitingReview,omitempty"`
	Cost           *plan.StepCost `json:"cost,omitempty"`
	Budget         *api.Budget    `json:"budget,omitempty"`
	After          []int          `json:"after,omitempty"`
}

// PlanUpdate returns p as one ACP v2 SessionUpdate of kind "plan_update": planId is p's
// name, one entry per step in document order, each entry's content the step's text without
// its holder's tag. Steps map to pending, in_progress, completed, cancelled (skipped) and
// StatusFailed; the revision, title, status and approval go under the plan's "_meta", a
// step's number, holder, evidence and cost under its entry's, both keyed by MetaKey. A plan
// without steps has no entries, which tells the client the plan is empty.
func PlanUpdate(p *plan.Plan) ([]byte, error) {
	if p == nil {
		return nil, errors.New("acp: PlanUpdate of a nil plan")
	}
	steps := plan.ParseSteps(p.Content)
	entries := make([]entry, 0, len(steps))
	for _, s := range steps {
		entries = append(entries, entry{Content: s.WithoutHolder(), Priority: Priority, Status: status(s.State),
			Meta: map[string]entryMeta{MetaKey: {Step: s.Number, Holder: s.Holder, Evidence: s.Evidence,
				AwaitingReview: s.AwaitingReview, Cost: s.Cost, Budget: s.Budget, After: s.After}}})
	}
	meta := planMeta{Revision: p.Revision, Title: p.Title, Status: p.Status}
	if p.Approval != nil {
		meta.Approved = p.Approval.Revision
	}
	if p.Waiting != nil {
		meta.Waiting = p.Waiting.Revision
	}
	return marshal(update{SessionUpdate: "plan_update",
		Plan: items{Type: "items", PlanID: p.Name, Entries: entries, Meta: map[string]planMeta{MetaKey: meta}}})
}

// status is the ACP entry status of a step's state.
func status(s plan.StepState) string {
	switch s {
	case plan.StepInProgress:
		return StatusInProgress
	case plan.StepCompleted:
		return StatusCompleted
	case plan.StepSkipped:
		return StatusCancelled
	case plan.StepFailed:
		return StatusFailed
	}
	return StatusPending
}

// Notification wraps a SessionUpdate (PlanUpdate's) in the JSON-RPC notification an agent
// sends an ACP client: method "session/update" with the session's ID.
func Notification(sessionID string, update []byte) ([]byte, error) {
	if !json.Valid(update) {
		return nil, errors.New("acp: the update is not JSON")
	}
	return marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  struct {
			SessionID string          `json:"sessionId"`
			Update    json.RawMessage `json:"update"`
		} `json:"params"`
	}{JSONRPC: "2.0", Method: "session/update", Params: struct {
		SessionID string          `json:"sessionId"`
		Update    json.RawMessage `json:"update"`
	}{sessionID, update}})
}

// marshal encodes v without HTML escaping and without a final newline. Invalid UTF-8 in a
// plan's text becomes U+FFFD, so the message is always valid JSON.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
