package engine

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/localfs"
)

// planPath is BaseDir/name.md; names never need cleaning, so no path.Join.
func (s *Store) planPath(name string) string {
	if s.Dir == "/" {
		return "/" + name + ".md"
	}
	return s.Dir + "/" + name + ".md"
}

// load reads and decodes one plan; a missing plan is (nil, "", nil).
func (s *Store) load(ctx context.Context, name string) (*document.Plan, string, error) {
	return s.loadFile(ctx, name, s.planPath(name))
}

// loadFile is load of plan name whose file (planPath) the caller has at hand.
func (s *Store) loadFile(ctx context.Context, name, file string) (*document.Plan, string, error) {
	for i := 0; ; i++ {
		// A file that keeps changing while its history is checked is being written: the last
		// one read is served, as stored when it was read.
		if p, raw, again, err := s.loadFileOnce(ctx, name, file); !again || i == readsAgain {
			return p, raw, err
		}
	}
}

// loadFileOnce is one read of loadFile; again reports a file that changed while it was
// checked (then p is the plan as read, its seals checked).
func (s *Store) loadFileOnce(ctx context.Context, name, file string) (_ *document.Plan, _ string, again bool, _ error) {
	raw, exists, linked, err := s.readPlanFile(ctx, file)
	if err != nil || !exists {
		return nil, "", false, err
	}
	text, repaired := raw, !utf8.ValidString(raw)
	if repaired {
		text = strings.ToValidUTF8(raw, "\uFFFD")
	}
	p, err := s.decoded.decode(name, text)
	if err != nil {
		return nil, raw, false, err
	}
	p.Repaired, p.Linked = repaired, linked
	again, err = s.checkAtRest(ctx, p, file, raw) // put back by hand, or seals that do not hold
	if err != nil {
		return nil, raw, false, err
	}
	return p, raw, again, nil
}

// Get is plan.Store.Get, whose doc comment is the contract.
func (s *Store) Get(ctx context.Context, name string) (*document.Plan, error) {
	if err := document.ValidateName(name); err != nil {
		return nil, err
	}
	p, _, err := s.load(ctx, name)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, notFound(name)
	}
	return p, nil
}

func notFound(name string) *document.Error {
	return document.Fail(document.Error{Code: document.CodeNotFound, Reason: document.ReasonNoPlan, Name: name})
}

// loadExisting is load for a plan that must exist.
func (s *Store) loadExisting(ctx context.Context, name string) (*document.Plan, string, error) {
	if err := document.ValidateName(name); err != nil {
		return nil, "", err
	}
	p, raw, err := s.load(ctx, name)
	if err != nil {
		return nil, "", err
	}
	if p == nil {
		return nil, "", notFound(name)
	}
	return p, raw, nil
}

// fileReader is what a bounded read needs: a Backend or a Workspace.
type fileReader interface {
	Read(ctx context.Context, req *driver.ReadRequest) (*driver.FileContent, error)
}

// ReadBounded reads the whole file p, but never more than limit+1 bytes when r is a
// driver.LimitedReader, and asks any other reader for every line explicitly (Limit 0 means "the
// first 2,000 lines" to some backends). A result over limit bytes means the file is too
// large. Errors are the reader's own.
func ReadBounded(ctx context.Context, r fileReader, p string, limit int64) (string, error) {
	if lr, ok := r.(driver.LimitedReader); ok {
		return lr.ReadAtMost(ctx, p, limit+1)
	}
	fc, err := r.Read(ctx, &driver.ReadRequest{FilePath: p, Offset: 1, Limit: wholeFileLines(limit)})
	if err != nil || fc == nil {
		return "", err
	}
	return fc.Content, nil
}

// wholeFileLines is a line Limit no file of at most limit bytes can reach, even one made of
// newlines only.
func wholeFileLines(limit int64) int {
	return int(min(limit, 1<<40)) + 2
}

// readRaw reads a file bounded to the largest size a plan can have. exists is false only
// when the Backend says the file does not exist.
func (s *Store) readRaw(ctx context.Context, p string) (raw string, exists bool, err error) {
	limit := int64(s.maxContent + headerAllowance)
	if s.limited != nil {
		raw, err = s.limited.ReadAtMost(ctx, p, limit+1)
	} else {
		raw, err = ReadBounded(ctx, s.Backend, p, limit)
	}
	switch {
	case err == nil:
	case IsNotExist(err):
		return "", false, nil
	case ctx.Err() != nil:
		return "", false, Canceled(ctx)
	case errors.Is(err, driver.ErrNotRegularFile):
		e := document.Fail(document.Error{Code: document.CodeCorrupt, Reason: document.ReasonNotPlanFile, Path: p})
		e.Err = err
		return "", true, e
	default:
		return "", false, BackendError("read "+p, err)
	}
	if int64(len(raw)) > limit {
		return "", true, document.Fail(document.Error{Code: document.CodeTooLarge, Reason: document.ReasonStoredTooLarge, Path: p, Limit: limit})
	}
	return raw, true, nil
}

// readPlanFile is readRaw of the plan file p, which it also reads when it has other names
// (readLinked).
func (s *Store) readPlanFile(ctx context.Context, p string) (raw string, exists, linked bool, err error) {
	raw, exists, err = s.readRaw(ctx, p)
	if err != nil && s.local != nil && errors.Is(err, driver.ErrNotRegularFile) {
		raw, linked, err = s.readLinked(ctx, p, err)
	}
	return raw, exists, linked, err
}

// readLinked reads plan file p, which a read refused with refusal, when it is a regular
// file with other names (hard links) on a LocalBackend: someone linked it, and refusing it
// would take the plan out of service for anyone who can make a link. It is served (linked
// true, Plan.Linked), its other names stay out of the file tools' reach (the file guard
// compares identities), and the Store's next write of it renames a fresh file into place,
// which breaks the link. Anything else keeps refusal.
func (s *Store) readLinked(ctx context.Context, p string, refusal error) (string, bool, error) {
	limit := int64(s.maxContent + headerAllowance)
	raw, err := localfs.ReadLinked(ctx, s.local, p, limit+1)
	switch {
	case err != nil:
		return "", false, refusal
	case int64(len(raw)) > limit:
		return "", false, document.Fail(document.Error{Code: document.CodeTooLarge, Reason: document.ReasonStoredTooLarge, Path: p, Limit: limit})
	}
	return raw, true, nil
}

// IsNotExist reports whether err means "no such file", for backends that wrap fs.ErrNotExist
// and for those (such as Eino's InMemoryBackend) that only say so in the message.
func IsNotExist(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "not found") || strings.Contains(msg, "no such file") ||
		strings.Contains(msg, "not exist")
}

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
	// unmarked: this Store wrote raw for a plan no person governs, which had no mark; only
	// a write of the plan (which changes raw) gives it one.
	unmarked bool
}

// decode returns decodePlan(name, raw), from the memo when raw is the file last decoded
// under name. The Plan returned is the caller's own.
func (m *decodedMemo) decode(name, raw string) (*document.Plan, error) {
	m.mu.Lock()
	f := m.files[name]
	m.mu.Unlock()
	if f == nil || f.raw != raw || f.plan == nil {
		p, err := document.DecodeSealed(name, raw)
		if err != nil {
			return nil, err
		}
		f = &decodedFile{raw: raw, plan: p}
		m.remember(name, f)
	}
	return document.CopyPlan(f.plan), nil
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
func (m *decodedMemo) wrote(name, raw string, p *document.Plan, unmarked bool) {
	c := document.CopyPlan(p)
	c.Repaired = false // what DecodePlan gives: the repair is in raw
	m.remember(name, &decodedFile{raw: raw, plan: c, utf8: 1, unmarked: unmarked})
}

// unmarked reports whether raw is the file this Store last wrote under name for a plan
// without a mark: a change whose compare-and-swap is based on raw needs no read of the mark.
func (m *decodedMemo) unmarked(name, raw string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := m.files[name]
	return f != nil && f.unmarked && f.raw == raw
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

// stillStored returns errWrongGuess (read again) when plan name's file is no longer raw on a
// driver.Swapper, where no lock keeps writers out: a write that landed after raw was read
// leaves the same entries as a file put back.
func (s *Store) stillStored(ctx context.Context, name, raw string) error {
	if s.swapper == nil {
		return nil
	}
	if now, _, err := s.readRaw(ctx, s.planPath(name)); err != nil || now != raw {
		return errWrongGuess
	}
	return nil
}
