package mcp

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sync"
	"time"

	"github.com/einoplan/plan/internal/document"
)

// Bounds of the questions a server keeps until their answer comes back.
const (
	questionTTL  = time.Hour // an answer later than this is no answer: the plan waits
	maxQuestions = 256       // beyond it the question asked first is dropped
)

// questions are the approval questions this server put to clients, by the request state
// that names each: an answer counts only with the state of a question asked of the same
// client name about exactly the plan it is applied to, and only once. The state is 128
// random bits, so a client cannot make one up. Kept in the process: a host that spreads one
// client's calls over several processes has answers refused, and its plans wait.
type questions struct {
	mu    sync.Mutex
	asked map[string]question
}

type question struct {
	agent   string
	digest  [sha256.Size]byte
	expires time.Time
}

// keep records a question asked of agent about the plan digest names, and returns its
// state.
func (q *questions) keep(agent string, digest [sha256.Size]byte) (string, error) {
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		return "", err
	}
	state := hex.EncodeToString(id[:])
	now := time.Now()
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.asked == nil {
		q.asked = map[string]question{}
	}
	oldest := ""
	for k, v := range q.asked {
		if now.After(v.expires) {
			delete(q.asked, k)
		} else if oldest == "" || v.expires.Before(q.asked[oldest].expires) {
			oldest = k
		}
	}
	if len(q.asked) >= maxQuestions {
		delete(q.asked, oldest)
	}
	q.asked[state] = question{agent: agent, digest: digest, expires: now.Add(questionTTL)}
	return state, nil
}

// take reports whether state names a live question asked of agent about the plan digest
// names, and forgets it: one answer per question.
func (q *questions) take(state, agent string, digest [sha256.Size]byte) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	v, ok := q.asked[state]
	if !ok {
		return false
	}
	delete(q.asked, state)
	return v.agent == agent && v.digest == digest && time.Now().Before(v.expires)
}

// questionDigest names what a person is shown and decides on: the request without its
// revision, which moves when the call that brings the answer marks the plan waiting again,
// and the client asking. A plan changed in between digests differently. ok is false for a
// request that cannot be digested, which is never asked about.
func questionDigest(agent string, req document.ApprovalRequest) (digest [sha256.Size]byte, ok bool) {
	req.Revision = 0
	raw, err := json.Marshal(struct {
		Agent   string
		Request document.ApprovalRequest
	}{agent, req})
	if err != nil {
		return digest, false
	}
	return sha256.Sum256(raw), true
}
