package plan

import (
	"sync"
	"unicode/utf8"
)

// The memo's bounds: past either, each plan remembered makes room by forgetting others,
// picked at random, so a Store that goes round more plans than it keeps still finds a share
// of them decoded. A file over a memoMaxBytes/64 is not kept.
const (
	memoLimit    = 4096
	memoMaxBytes = 32 << 20
)

// decodedMemo keeps, per plan name, the last plan file this Store decoded, so that reading
// an unchanged file again costs a comparison of its bytes instead of a decode. A file is
// only ever matched byte for byte, so a change by any writer is never hidden.
type decodedMemo struct {
	mu    sync.Mutex
	files map[string]*decodedFile
	bytes int // the sum of the raw files kept
}

// decodedFile is one plan file and what was derived from it.
type decodedFile struct {
	raw  string
	plan *Plan  // as DecodePlan returned it, before the approval seal is checked; nil until decoded
	hash string // fileHash(raw); "" until computed
	utf8 int8   // whether raw is valid UTF-8 (which a change built on a guess needs): 0 until checked, 1 yes, -1 no
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
	defer m.mu.Unlock()
	if m.files == nil {
		m.files = make(map[string]*decodedFile)
	}
	if old, known := m.files[name]; known {
		delete(m.files, name)
		m.bytes -= len(old.raw)
	}
	if len(f.raw) > memoMaxBytes/64 {
		return
	}
	full := func() bool { return len(m.files) >= memoLimit || m.bytes+len(f.raw) > memoMaxBytes }
	if full() { // ranging a map costs even when nothing goes, so only when something must
		for other, o := range m.files { // map order is random
			delete(m.files, other)
			m.bytes -= len(o.raw)
			if !full() {
				break
			}
		}
	}
	m.files[name] = f
	m.bytes += len(f.raw)
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
	if f != nil && f.utf8 == 0 {
		f.utf8 = -1
		if utf8.ValidString(f.raw) {
			f.utf8 = 1
		}
	}
	m.mu.Unlock()
	if f == nil || f.plan == nil || f.utf8 < 0 {
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
