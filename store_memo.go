package plan

import (
	"sync"
	"unicode/utf8"
)

// memoLimit bounds the plans a Store keeps decoded; past it each plan remembered makes
// room by forgetting another, picked at random, so a Store that goes round more plans
// than that still finds a share of them decoded.
const memoLimit = 512

// decodedMemo keeps, per plan name, the last plan file this Store decoded, so that reading
// an unchanged file again costs a comparison of its bytes instead of a decode. A file is
// only ever matched byte for byte, so a change by any writer is never hidden.
type decodedMemo struct {
	mu    sync.Mutex
	files map[string]*decodedFile
}

// decodedFile is one plan file and what was derived from it.
type decodedFile struct {
	raw  string
	plan *Plan  // as DecodePlan returned it, before the approval seal is checked; nil until decoded
	hash string // fileHash(raw); "" until computed
}

// decode returns DecodePlan(name, raw), from the memo when raw is the file last decoded
// under name. The Plan returned is the caller's own.
func (m *decodedMemo) decode(name, raw string) (*Plan, error) {
	m.mu.Lock()
	f := m.files[name]
	var hash string
	if f != nil {
		hash = f.hash
	}
	m.mu.Unlock()
	if f != nil && f.raw == raw && f.plan != nil {
		return f.plan.copy(), nil
	}
	p, err := DecodePlan(name, raw)
	if err != nil {
		return nil, err
	}
	g := &decodedFile{raw: raw, plan: p.copy()}
	if f != nil && f.raw == raw {
		g.hash = hash
	}
	m.remember(name, g)
	return p, nil
}

// remember records f as the file last seen under name.
func (m *decodedMemo) remember(name string, f *decodedFile) {
	m.mu.Lock()
	if m.files == nil {
		m.files = make(map[string]*decodedFile)
	}
	if _, known := m.files[name]; !known && len(m.files) >= memoLimit {
		for other := range m.files { // map order is random
			delete(m.files, other)
			break
		}
	}
	m.files[name] = f
	m.mu.Unlock()
}

// wrote records that raw, the encoding of p whose fileHash is hash ("" when not computed),
// is now the file under name, so the next read of it needs no decode.
func (m *decodedMemo) wrote(name, raw, hash string, p *Plan) {
	c := p.copy()
	c.Repaired = false // what DecodePlan gives: the repair is in raw
	m.remember(name, &decodedFile{raw: raw, hash: hash, plan: c})
}

// last returns the file last seen under name and its plan, when decoded: a guess at what is
// stored, which only a compare-and-swap based on raw may act on.
func (m *decodedMemo) last(name string) (raw string, p *Plan, ok bool) {
	m.mu.Lock()
	f := m.files[name]
	m.mu.Unlock()
	if f == nil || f.plan == nil || !utf8.ValidString(f.raw) {
		return "", nil, false
	}
	return f.raw, f.plan.copy(), true
}

// hashOf is fileHash(raw), computed once per file the memo holds under name.
func (m *decodedMemo) hashOf(name, raw string) string {
	m.mu.Lock()
	f := m.files[name]
	var h string
	if f != nil && f.raw == raw {
		h = f.hash
	}
	m.mu.Unlock()
	if h != "" {
		return h
	}
	h = fileHash(raw)
	m.mu.Lock()
	if f != nil && f.raw == raw {
		f.hash = h
	}
	m.mu.Unlock()
	return h
}

// copy returns a Plan that shares nothing mutable with p.
func (p *Plan) copy() *Plan {
	c := *p
	if p.Approval != nil {
		a := *p.Approval
		c.Approval = &a
	}
	return &c
}
