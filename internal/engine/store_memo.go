package engine

import (
	"sync"
	"unicode/utf8"

	"github.com/einoplan/plan/internal/document"
)

// The memo's bounds: past either, each plan remembered makes room by forgetting others,
// picked at random, so a Store that goes round more plans than it keeps still finds a share
// of them decoded. A file over a memoMaxBytes/64 is not kept.
const (
	memoLimit    = 16384
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
	plan *document.Plan // as decodePlan returned it, before the approval seal is checked; nil until decoded
	utf8 int8           // whether raw is valid UTF-8 (which a change built on a guess needs): 0 until checked, 1 yes, -1 no
}

// decode returns decodePlan(name, raw), from the memo when raw is the file last decoded
// under name. The Plan returned is the caller's own.
func (m *decodedMemo) decode(name, raw string) (*document.Plan, error) {
	m.mu.Lock()
	f := m.files[name]
	m.mu.Unlock()
	if f != nil && f.raw == raw && f.plan != nil {
		return document.CopyPlan(f.plan), nil
	}
	p, err := document.DecodeSealed(name, raw)
	if err != nil {
		return nil, err
	}
	m.remember(name, &decodedFile{raw: raw, plan: document.CopyPlan(p)})
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

// wrote records that raw, the encoding of p, is now the file under name, so the next read
// of it needs no decode. The Store encodes only valid UTF-8, so raw is.
func (m *decodedMemo) wrote(name, raw string, p *document.Plan) {
	c := document.CopyPlan(p)
	c.Repaired = false // what DecodePlan gives: the repair is in raw
	m.remember(name, &decodedFile{raw: raw, plan: c, utf8: 1})
}

// last returns the file last seen under name and its plan, when decoded: a guess at what is
// stored, which only a compare-and-swap based on raw may act on.
func (m *decodedMemo) last(name string) (raw string, p *document.Plan, ok bool) {
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
	return f.raw, document.CopyPlan(f.plan), true
}
