package plan

import (
	"context"
	"errors"
	"fmt"
	"github.com/bytedance/sonic"
	"math"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Defaults of StoreConfig.
const (
	DefaultBaseDir         = "/plans"
	DefaultMaxContentBytes = 1 << 20
	maxHeaderField         = 1024
	// headerAllowance bounds the stored header, so a stored file is at most
	// MaxContentBytes+headerAllowance bytes.
	headerAllowance = 16 << 10
	// racyWindow: a file modified this recently may change again without its Size and
	// ModifiedAt changing (coarse file-system clocks), so its summary is not cached yet.
	racyWindow = 2 * time.Second
	// maxSwapAttempts bounds the retries of an unguarded write that keeps losing
	// compare-and-swap races.
	maxSwapAttempts = 32
	defaultStatus   = "draft"
)

// StoreConfig configures a Store.
type StoreConfig struct {
	// Backend is where plan files live. Required.
	Backend Backend
	// BaseDir is the folder of plan files inside Backend; default DefaultBaseDir.
	// It must be a clean slash-separated path without "..".
	BaseDir string
	// MaxContentBytes caps a plan's body; default DefaultMaxContentBytes.
	MaxContentBytes int
	// DefaultAuthor is the author recorded when a plan is created without one.
	DefaultAuthor string
	// OnChange, when set, is called after every successful mutation and never after a
	// failed one. It runs synchronously, outside the Store's locks.
	OnChange func(ctx context.Context, c Change)
}

// Action names the kind of mutation a Change reports.
type Action string

// The mutations a Change can report.
const (
	ActionWrite  Action = "write"
	ActionStatus Action = "status"
	ActionStep   Action = "step"
	ActionDelete Action = "delete"
)

// Change describes one successful mutation. It never carries the plan's body.
type Change struct {
	Name     string   `json:"name"`
	Action   Action   `json:"action"`
	Revision int64    `json:"revision"`
	Created  bool     `json:"created,omitempty"`
	Title    string   `json:"title,omitempty"`
	Status   string   `json:"status,omitempty"`
	Author   string   `json:"author,omitempty"`
	Progress Progress `json:"progress"`
}

// Update is a create-or-update request. Nil or empty fields keep their stored value (a
// create fills them with defaults: the body's first heading or the name for Title,
// "draft" for Status, StoreConfig.DefaultAuthor for Author).
type Update struct {
	Name    string
	Content *string
	Title   string
	Status  string
	Author  string
	// IfRevision guards the write: nil writes whatever is stored, 0 only creates, and n > 0
	// only updates revision n.
	IfRevision *int64
}

// Listing is the result of List: summaries sorted by name, and one warning per plan file
// that could not be read, so "no plans" is never confused with "some failed to load".
type Listing struct {
	Plans    []Summary `json:"plans"`
	Warnings []Warning `json:"warnings,omitempty"`
}

// Warning names a plan file that List could not summarize.
type Warning struct {
	Name    string `json:"name"`
	Code    Code   `json:"code"`
	Message string `json:"message"`
}

// Store owns plan semantics on a Backend: names, revisions, compare-and-set, size caps and
// the list cache. Every Store on the same (Backend, BaseDir) pair in a process shares one
// lock and one cache, so tools of any agent run and host code never interleave a
// read-check-write. Beyond the process the guarantee is what the Backend offers: a Locker
// or a Swapper makes guarded writes atomic across processes; without either it ends at
// the process. Reads take no lock: a reader sees a whole old or a whole new revision as
// long as the Backend's writes are atomic.
type Store struct {
	backend    Backend
	dir        string
	maxContent int
	author     string
	onChange   func(ctx context.Context, c Change)
	listening  func(ctx context.Context) bool // nil: onChange always wants changes
	shared     *sharedState
	locker     Locker
	swapper    Swapper
	limited    LimitedReader
	strict     bool
	now        func() time.Time
}

// NewStore validates cfg and returns a Store.
func NewStore(cfg *StoreConfig) (*Store, error) {
	if cfg == nil {
		return nil, errors.New("plan: StoreConfig is nil")
	}
	if cfg.Backend == nil {
		return nil, errors.New("plan: Backend is required")
	}
	dir, err := cleanBaseDir(cfg.BaseDir)
	if err != nil {
		return nil, err
	}
	if cfg.MaxContentBytes < 0 {
		return nil, fmt.Errorf("plan: MaxContentBytes %d is negative", cfg.MaxContentBytes)
	}
	s := &Store{
		backend:    cfg.Backend,
		dir:        dir,
		maxContent: cfg.MaxContentBytes,
		author:     cfg.DefaultAuthor,
		onChange:   cfg.OnChange,
		shared:     sharedFor(cfg.Backend, dir),
		now:        time.Now,
	}
	if s.maxContent == 0 {
		s.maxContent = DefaultMaxContentBytes
	}
	s.locker, _ = cfg.Backend.(Locker)
	s.swapper, _ = cfg.Backend.(Swapper)
	s.limited, _ = cfg.Backend.(LimitedReader)
	if st, ok := cfg.Backend.(interface{ StrictModTimes() bool }); ok {
		s.strict = st.StrictModTimes()
	}
	return s, nil
}

// BaseDir returns the folder the Store keeps plans in.
func (s *Store) BaseDir() string { return s.dir }

// MaxContentBytes returns the cap on a plan's body.
func (s *Store) MaxContentBytes() int { return s.maxContent }

// cleanBaseDir accepts "" (the default) or a slash path that path.Clean leaves unchanged
// apart from a trailing slash, with no ".." and no NUL.
func cleanBaseDir(dir string) (string, error) {
	if dir == "" {
		return DefaultBaseDir, nil
	}
	trimmed := dir
	if len(trimmed) > 1 {
		trimmed = strings.TrimSuffix(trimmed, "/")
	}
	if strings.ContainsRune(trimmed, 0) || !utf8.ValidString(trimmed) || path.Clean(trimmed) != trimmed ||
		strings.HasPrefix(trimmed, "..") || strings.Contains(trimmed, "/..") || trimmed == "." {
		return "", fmt.Errorf("plan: BaseDir %q must be a clean path without \"..\", e.g. %q", dir, DefaultBaseDir)
	}
	return trimmed, nil
}

// planPath is BaseDir/name.md; names never need cleaning, so no path.Join.
func (s *Store) planPath(name string) string {
	if s.dir == "/" {
		return "/" + name + ".md"
	}
	return s.dir + "/" + name + ".md"
}
func (s *Store) tombstonePath(name string) string { return path.Join(s.dir, ".deleted", name) }

// sharedState is what every Store on one (Backend, BaseDir) pair shares in a process.
type sharedState struct {
	sem     chan struct{} // a mutex that a waiter can abandon when its context ends
	cacheMu sync.Mutex
	cache   map[string]*cachedSummary
	listGen uint64
	// sorted is the last listing that came wholly from the cache, in name order: while the
	// same entries keep coming back unchanged, List reuses that order instead of sorting.
	sorted []*cachedSummary
}

// cachedSummary is replaced, never changed, when its plan changes; only seen (the last
// listing that returned it) is updated, under cacheMu. An entry that was never cached (a
// file changed within the racy window) is private to one listing.
type cachedSummary struct {
	size     int64
	modified string
	summary  Summary
	json     string // summary encoded, set before the entry is shared
	seen     uint64
}

type sharedKey struct {
	backend Backend
	dir     string
}

var sharedRegistry sync.Map // sharedKey → *sharedState

// sharedFor returns the process-wide state of (backend, dir). A backend whose dynamic type
// is not comparable cannot be recognised again, so it gets state of its own.
func sharedFor(backend Backend, dir string) *sharedState {
	fresh := &sharedState{sem: make(chan struct{}, 1), cache: map[string]*cachedSummary{}}
	if !reflect.TypeOf(backend).Comparable() {
		return fresh
	}
	st, _ := sharedRegistry.LoadOrStore(sharedKey{backend, dir}, fresh)
	return st.(*sharedState)
}

// lock takes the process lock, then the Backend's own lock when it offers one.
func (s *Store) lock(ctx context.Context) (func(), error) {
	select {
	case s.shared.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, canceled(ctx)
	}
	if s.locker == nil {
		return func() { <-s.shared.sem }, nil
	}
	unlock, err := s.locker.Lock(ctx, s.dir)
	if err != nil {
		<-s.shared.sem
		if ctx.Err() != nil {
			return nil, canceled(ctx)
		}
		return nil, backendError("lock the plans folder", err)
	}
	return func() { unlock(); <-s.shared.sem }, nil
}

func canceled(ctx context.Context) *Error {
	return &Error{Code: CodeCanceled, Message: "the request was canceled before anything was written", Err: ctx.Err()}
}

func backendError(what string, err error) *Error {
	return &Error{Code: CodeBackendError, Message: "plan storage failed to " + what + "; try again later", Err: err}
}

// readRaw reads a file bounded to the largest size a plan can have. exists is false only
// when the Backend says the file does not exist.
func (s *Store) readRaw(ctx context.Context, p string) (raw string, exists bool, err error) {
	limit := int64(s.maxContent + headerAllowance)
	if s.limited != nil {
		raw, err = s.limited.ReadAtMost(ctx, p, limit+1)
	} else {
		var fc *FileContent
		fc, err = s.backend.Read(ctx, &ReadRequest{FilePath: p})
		if fc != nil {
			raw = fc.Content
		}
	}
	switch {
	case err == nil:
	case isNotExist(err):
		return "", false, nil
	case ctx.Err() != nil:
		return "", false, canceled(ctx)
	default:
		return "", false, backendError("read "+p, err)
	}
	if int64(len(raw)) > limit {
		return "", true, newError(CodeTooLarge, "stored file %s is larger than %d bytes; delete it or raise the size limit", p, limit)
	}
	return raw, true, nil
}

// load reads and decodes one plan; a missing plan is (nil, "", nil).
func (s *Store) load(ctx context.Context, name string) (*Plan, string, error) {
	raw, exists, err := s.readRaw(ctx, s.planPath(name))
	if err != nil || !exists {
		return nil, "", err
	}
	p, err := DecodePlan(name, raw)
	if err != nil {
		return nil, raw, err
	}
	return p, raw, nil
}

// Get returns the plan called name: not_found, corrupt, too_large or backend_error
// otherwise.
func (s *Store) Get(ctx context.Context, name string) (*Plan, error) {
	if err := ValidateName(name); err != nil {
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

func notFound(name string) *Error {
	return newError(CodeNotFound, "no plan named %s; call list_plans to see the existing names", quoteForMessage(name))
}

// Put creates or updates a plan as u says, atomically with the revision check.
func (s *Store) Put(ctx context.Context, u Update) (*Plan, error) {
	if u.Content != nil {
		if err := s.checkContent(*u.Content); err != nil {
			return nil, err
		}
	}
	for _, f := range [...]struct{ key, value string }{{"title", u.Title}, {"status", u.Status}, {"author", u.Author}} {
		if err := checkHeaderField(f.key, f.value); err != nil {
			return nil, err
		}
	}
	var created bool
	p, err := s.mutate(ctx, u.Name, u.IfRevision, func(cur *Plan) (*Plan, error) {
		if cur == nil {
			if u.Content == nil {
				return nil, newError(CodeInvalidArgument, "plan %s does not exist yet; give content to create it", quoteForMessage(u.Name))
			}
			created = true
			next := &Plan{Title: u.Title, Status: u.Status, Author: u.Author, Content: *u.Content}
			if next.Title == "" {
				next.Title = titleFromContent(next.Content)
			}
			if next.Title == "" {
				next.Title = u.Name
			}
			if next.Status == "" {
				next.Status = defaultStatus
			}
			if next.Author == "" {
				next.Author = s.author
			}
			return next, nil
		}
		next := *cur
		if u.Content != nil {
			next.Content = *u.Content
		}
		keepUnlessEmpty(&next.Title, u.Title)
		keepUnlessEmpty(&next.Status, u.Status)
		keepUnlessEmpty(&next.Author, u.Author)
		return &next, nil
	})
	if err != nil {
		return nil, err
	}
	s.notify(ctx, ActionWrite, p, created)
	return p, nil
}

func keepUnlessEmpty(field *string, value string) {
	if value != "" {
		*field = value
	}
}

// SetStatus changes only the status of an existing plan; it never creates one.
func (s *Store) SetStatus(ctx context.Context, name, status string, ifRevision *int64) (*Plan, error) {
	if strings.TrimSpace(status) == "" {
		return nil, newError(CodeInvalidArgument, "status is empty; give a short text such as \"in-progress\" or \"done\"")
	}
	if err := checkHeaderField("status", status); err != nil {
		return nil, err
	}
	p, err := s.mutate(ctx, name, ifRevision, func(cur *Plan) (*Plan, error) {
		if cur == nil {
			return nil, notFound(name)
		}
		next := *cur
		next.Status = status
		return &next, nil
	})
	if err != nil {
		return nil, err
	}
	s.notify(ctx, ActionStatus, p, false)
	return p, nil
}

// UpdateStep moves checklist step number (1-based) of an existing plan to state, appending
// note to the step's line when given. It returns the plan and the updated step.
func (s *Store) UpdateStep(ctx context.Context, name string, number int, state StepState, note string, ifRevision *int64) (*Plan, Step, error) {
	var step Step
	p, err := s.mutate(ctx, name, ifRevision, func(cur *Plan) (*Plan, error) {
		if cur == nil {
			return nil, notFound(name)
		}
		body, updated, err := SetStepState(cur.Content, number, state, note)
		if err != nil {
			return nil, err
		}
		if err := s.checkContent(body); err != nil {
			return nil, err
		}
		step = updated
		next := *cur
		next.Content = body
		return &next, nil
	})
	if err != nil {
		return nil, Step{}, err
	}
	s.notify(ctx, ActionStep, p, false)
	return p, step, nil
}

func (s *Store) checkContent(content string) error {
	if strings.TrimSpace(content) == "" {
		return newError(CodeInvalidArgument, "content is empty; give the plan as Markdown, with steps as a checklist (- [ ] step)")
	}
	if len(content) > s.maxContent {
		return newError(CodeTooLarge, "content is %d bytes; the limit is %d. Shorten the plan or split it into several plans", len(content), s.maxContent)
	}
	return nil
}

func checkHeaderField(key, value string) error {
	if len(value) > maxHeaderField {
		return newError(CodeInvalidArgument, "%s is %d bytes; at most %d allowed", key, len(value), maxHeaderField)
	}
	if !utf8.ValidString(value) {
		return newError(CodeInvalidArgument, "%s is not valid UTF-8", key)
	}
	return nil
}

func checkIfRevision(ifRevision *int64) error {
	if ifRevision != nil && *ifRevision < 0 {
		return newError(CodeInvalidArgument, "last_known_revision %d is negative; use the revision from read_plan, or 0 to create a new plan", *ifRevision)
	}
	return nil
}

// checkRevision enforces IfRevision against what is stored (cur nil: absent).
func checkRevision(name string, cur *Plan, ifRevision *int64) error {
	if ifRevision == nil {
		return nil
	}
	want := *ifRevision
	switch {
	case cur == nil && want > 0:
		return newError(CodeNotFound, "no plan named %s (it may have been deleted); call list_plans, or create it with last_known_revision 0", quoteForMessage(name))
	case cur != nil && want == 0:
		return &Error{Code: CodeRevisionConflict, CurrentRevision: cur.Revision,
			Message: fmt.Sprintf("plan %s already exists at revision %d; read it and retry with last_known_revision %d, or pick another name", quoteForMessage(name), cur.Revision, cur.Revision)}
	case cur != nil && want != cur.Revision:
		return &Error{Code: CodeRevisionConflict, CurrentRevision: cur.Revision,
			Message: fmt.Sprintf("plan %s is at revision %d, not %d: someone else changed it. Re-read it with read_plan and retry with last_known_revision %d", quoteForMessage(name), cur.Revision, want, cur.Revision)}
	}
	return nil
}

var errLostSwap = errors.New("plan: compare-and-swap lost a race")

// mutate runs one read-check-write under the locks: it loads the plan, checks ifRevision,
// lets change build the next version (cur is nil when the plan does not exist), and writes
// it with the next revision. On a Swapper backend a lost race is retried from the read, so
// a guarded write then fails on the revision check and an unguarded one lands on top.
func (s *Store) mutate(ctx context.Context, name string, ifRevision *int64, change func(cur *Plan) (*Plan, error)) (*Plan, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	if err := checkIfRevision(ifRevision); err != nil {
		return nil, err
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	for attempt := 0; ; attempt++ {
		next, err := s.mutateOnce(ctx, name, ifRevision, change)
		if errors.Is(err, errLostSwap) && attempt < maxSwapAttempts {
			continue
		}
		if errors.Is(err, errLostSwap) {
			return nil, backendError("write "+s.planPath(name)+" (too many concurrent writers)", err)
		}
		return next, err
	}
}

func (s *Store) mutateOnce(ctx context.Context, name string, ifRevision *int64, change func(cur *Plan) (*Plan, error)) (*Plan, error) {
	cur, raw, err := s.load(ctx, name)
	if err != nil {
		return nil, err
	}
	if err := checkRevision(name, cur, ifRevision); err != nil {
		return nil, err
	}
	next, err := change(cur)
	if err != nil {
		return nil, err
	}
	last := int64(0)
	if cur != nil {
		last = cur.Revision
	} else if last, err = s.lastDeletedRevision(ctx, name); err != nil {
		return nil, err
	}
	if last == math.MaxInt64 {
		return nil, newError(CodeCorrupt, "plan %s cannot get a revision past %d: its file, or the record of its deletion in %s, was edited by hand",
			quoteForMessage(name), last, path.Dir(s.tombstonePath(name)))
	}
	next.Revision = last + 1
	next.Name = name
	next.UpdatedAt = s.now().UTC()
	var old *string
	if cur != nil {
		old = &raw
	}
	if err := s.commit(ctx, s.planPath(name), old, EncodePlan(next)); err != nil {
		return nil, err
	}
	s.forget(name)
	return next, nil
}

// commit writes content at p; with a Swapper only if p still holds old (absent when nil).
func (s *Store) commit(ctx context.Context, p string, old *string, content string) error {
	if ctx.Err() != nil {
		return canceled(ctx)
	}
	if s.swapper != nil {
		ok, err := s.swapper.CompareAndSwap(ctx, &WriteRequest{FilePath: p, Content: content}, old)
		if err != nil {
			return backendError("write "+p, err)
		}
		if !ok {
			return errLostSwap
		}
		return nil
	}
	if err := s.backend.Write(ctx, &WriteRequest{FilePath: p, Content: content}); err != nil {
		return backendError("write "+p, err)
	}
	return nil
}

// lastDeletedRevision returns the revision a deleted plan of that name reached, or 0.
// Revisions never repeat for a name, so a writer holding a revision of a deleted plan
// cannot overwrite a new plan that took the same name.
func (s *Store) lastDeletedRevision(ctx context.Context, name string) (int64, error) {
	raw, exists, err := s.readRaw(ctx, s.tombstonePath(name))
	if err != nil || !exists {
		return 0, err
	}
	n, perr := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
	if perr != nil || n < 0 {
		return 0, nil
	}
	return n, nil
}

// Delete removes a plan. An unguarded delete also removes a plan file that does not
// decode, which is how a corrupt plan is recovered.
func (s *Store) Delete(ctx context.Context, name string, ifRevision *int64) (int64, error) {
	if err := ValidateName(name); err != nil {
		return 0, err
	}
	if err := checkIfRevision(ifRevision); err != nil {
		return 0, err
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return 0, err
	}
	defer unlock()
	var cur *Plan
	for attempt := 0; ; attempt++ {
		var f deleteTarget
		f, err = s.loadForDelete(ctx, name, ifRevision)
		if err != nil {
			return 0, err
		}
		if !f.exists {
			return 0, notFound(name)
		}
		cur = f.plan
		if ifRevision != nil && *ifRevision == 0 {
			return 0, newError(CodeInvalidArgument, "last_known_revision 0 means create-only; give the plan's current revision to delete it, or omit it")
		}
		if err := checkRevision(name, cur, ifRevision); err != nil {
			return 0, err
		}
		if f.revision > 0 {
			if err := s.raiseTombstone(ctx, name, f.revision); err != nil {
				return 0, err
			}
		}
		err = s.remove(ctx, s.planPath(name), f.raw)
		if errors.Is(err, errLostSwap) && attempt < maxSwapAttempts {
			continue
		}
		if errors.Is(err, errLostSwap) {
			return 0, backendError("delete "+s.planPath(name)+" (too many concurrent writers)", err)
		}
		if err != nil {
			return 0, err
		}
		break
	}
	s.forget(name)
	var rev int64
	if cur != nil {
		rev = cur.Revision
		s.notify(ctx, ActionDelete, cur, false)
	} else {
		s.notify(ctx, ActionDelete, &Plan{Name: name}, false)
	}
	return rev, nil
}

// deleteTarget is what Delete found at a plan's path.
type deleteTarget struct {
	exists bool
	plan   *Plan // nil when the file does not decode or is over the size limit
	// raw is the whole file when the Backend is a Swapper (its conditional delete compares
	// it), and otherwise as far as it was read.
	raw string
	// revision is the revision the file reached: the plan's, or for a file that does not
	// decode the one its header still names, so the tombstone keeps revisions from
	// repeating after a corrupt plan is deleted and written again. 0 when unknown.
	revision int64
}

// loadForDelete is load that tolerates, when the delete is unguarded, a file that does not
// decode or is over the size limit: deleting it is how such a plan is recovered.
func (s *Store) loadForDelete(ctx context.Context, name string, ifRevision *int64) (deleteTarget, error) {
	p := s.planPath(name)
	raw, exists, err := s.readRaw(ctx, p)
	tooLarge := CodeOf(err) == CodeTooLarge
	if err != nil && !(tooLarge && ifRevision == nil) {
		return deleteTarget{}, err
	}
	if !exists {
		return deleteTarget{}, nil
	}
	if !tooLarge {
		plan, derr := DecodePlan(name, raw)
		if derr == nil {
			return deleteTarget{exists: true, plan: plan, raw: raw, revision: plan.Revision}, nil
		}
		if ifRevision != nil {
			return deleteTarget{}, derr
		}
		rev, _ := headerRevision(raw)
		return deleteTarget{exists: true, raw: raw, revision: rev}, nil
	}
	// Over the size limit: read the header for its revision, and the whole file where the
	// conditional delete of a Swapper compares it or no bounded read is offered. This
	// explicit recovery is the one operation that reads an oversized file whole.
	if s.limited != nil && s.swapper == nil {
		if raw, err = s.limited.ReadAtMost(ctx, p, headerAllowance); err != nil {
			raw = ""
		}
	} else {
		fc, err := s.backend.Read(ctx, &ReadRequest{FilePath: p})
		switch {
		case err == nil && fc != nil:
			raw = fc.Content
		case isNotExist(err):
			return deleteTarget{}, nil
		case ctx.Err() != nil:
			return deleteTarget{}, canceled(ctx)
		default:
			return deleteTarget{}, backendError("read "+p, err)
		}
	}
	rev, _ := headerRevision(raw)
	return deleteTarget{exists: true, raw: raw, revision: rev}, nil
}

// headerRevision returns the revision named in the header of a plan file that may not
// decode, reading only the header's first headerAllowance bytes.
func headerRevision(raw string) (int64, bool) {
	rest, ok := strings.CutPrefix(raw[:min(len(raw), headerAllowance)], headerFence)
	if !ok {
		return 0, false
	}
	var rev int64
	var found bool
	for line := range strings.Lines(rest) {
		line = strings.TrimRight(line, "\r\n")
		if line == "---" {
			break
		}
		if v, ok := strings.CutPrefix(line, "revision: "); ok {
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && n >= 0 {
				rev, found = n, true
			}
		}
	}
	return rev, found
}

func (s *Store) remove(ctx context.Context, p, old string) error {
	if ctx.Err() != nil {
		return canceled(ctx)
	}
	if s.swapper != nil {
		ok, err := s.swapper.CompareAndDelete(ctx, &DeleteRequest{FilePath: p}, old)
		if err != nil {
			return backendError("delete "+p, err)
		}
		if !ok {
			return errLostSwap
		}
		return nil
	}
	if err := s.backend.Delete(ctx, &DeleteRequest{FilePath: p}); err != nil && !isNotExist(err) {
		return backendError("delete "+p, err)
	}
	return nil
}

// raiseTombstone records that name reached revision rev, never lowering what is recorded.
func (s *Store) raiseTombstone(ctx context.Context, name string, rev int64) error {
	p := s.tombstonePath(name)
	for attempt := 0; attempt < maxSwapAttempts; attempt++ {
		raw, exists, err := s.readRaw(ctx, p)
		if err != nil {
			return err
		}
		if n, perr := strconv.ParseInt(strings.TrimSpace(raw), 10, 64); exists && perr == nil && n >= rev {
			return nil
		}
		var old *string
		if exists {
			old = &raw
		}
		err = s.commit(ctx, p, old, strconv.FormatInt(rev, 10)+"\n")
		if !errors.Is(err, errLostSwap) {
			return err
		}
	}
	return backendError("record the deletion of "+name, errLostSwap)
}

func (s *Store) forget(name string) {
	s.shared.cacheMu.Lock()
	delete(s.shared.cache, name)
	s.shared.cacheMu.Unlock()
}

func (s *Store) notify(ctx context.Context, action Action, p *Plan, created bool) {
	if s.onChange == nil || (s.listening != nil && !s.listening(ctx)) {
		return
	}
	c := Change{Name: p.Name, Action: action, Revision: p.Revision, Created: created,
		Title: p.Title, Status: p.Status, Author: p.Author}
	if action != ActionDelete {
		c.Progress = ComputeProgress(ParseSteps(p.Content))
	}
	s.onChange(ctx, c)
}

// List summarizes every plan in BaseDir, sorted by name. A summary is re-read only when
// LsInfo reports a different Size or ModifiedAt than when it was cached, and the Store's
// own writes drop their entry, so changes by other processes are seen on the next List.
func (s *Store) List(ctx context.Context) (*Listing, error) {
	entries, warnings, err := s.list(ctx)
	if err != nil {
		return nil, err
	}
	out := &Listing{Plans: make([]Summary, len(entries)), Warnings: warnings}
	for i, c := range entries {
		out.Plans[i] = c.summary
	}
	return out, nil
}

// listJSON is List encoded as JSON, as list_plans returns it. Each cached summary is
// encoded once, when it is cached, so listing many unchanged plans costs little more than
// copying bytes.
func (s *Store) listJSON(ctx context.Context) (string, error) {
	entries, warnings, err := s.list(ctx)
	if err != nil {
		return "", err
	}
	size := len(`{"plans":[]}`)
	for _, c := range entries {
		if c.json == "" {
			c.json = encodeSummary(&c.summary)
		}
		size += len(c.json) + 1
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString(`{"plans":[`)
	for i, c := range entries {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(c.json)
	}
	b.WriteByte(']')
	if len(warnings) > 0 {
		w, err := sonic.MarshalString(warnings)
		if err != nil {
			return "", backendError("encode the listing", err)
		}
		b.WriteString(`,"warnings":`)
		b.WriteString(w)
	}
	b.WriteByte('}')
	return b.String(), nil
}

func encodeSummary(sum *Summary) string {
	js, err := sonic.MarshalString(sum)
	if err != nil {
		return "{}" // a Summary holds only strings, numbers and times: unreachable
	}
	return js
}

// list returns every plan's summary sorted by name, and warnings sorted by name. Entries
// that came from the cache are shared: callers must not change them.
func (s *Store) list(ctx context.Context) ([]*cachedSummary, []Warning, error) {
	infos, err := s.backend.LsInfo(ctx, &LsInfoRequest{Path: s.dir})
	if err != nil && !isNotExist(err) {
		if ctx.Err() != nil {
			return nil, nil, canceled(ctx)
		}
		return nil, nil, backendError("list "+s.dir, err)
	}
	listed := 0
	now := s.now()
	// One pass under the cache lock takes every unchanged summary; only the rest is read.
	var stale []listedPlan
	hits := make([]*cachedSummary, 0, len(infos))
	s.shared.cacheMu.Lock()
	s.shared.listGen++
	gen := s.shared.listGen
	for _, info := range infos {
		name, ok := planFileName(info)
		if !ok {
			continue
		}
		listed++
		if c, ok := s.shared.cache[name]; ok && info.ModifiedAt != "" && c.size == info.Size && c.modified == info.ModifiedAt {
			c.seen = gen
			hits = append(hits, c)
			continue
		}
		stale = append(stale, listedPlan{name, info})
	}
	if len(stale) == 0 {
		if !s.sameAsSorted(hits, gen) {
			slices.SortFunc(hits, compareCached)
			s.shared.sorted = hits
		}
		sorted := s.shared.sorted
		s.shared.cacheMu.Unlock()
		return sorted, nil, nil
	}
	s.shared.cacheMu.Unlock()
	entries := hits
	var warnings []Warning
	for _, e := range stale {
		p, _, err := s.load(ctx, e.name)
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, canceled(ctx)
			}
			w := Warning{Name: e.name, Code: CodeOf(err), Message: err.Error()}
			var pe *Error
			if errors.As(err, &pe) {
				w.Message = pe.Message
			}
			warnings = append(warnings, w)
			continue
		}
		if p == nil {
			continue // deleted between LsInfo and Read
		}
		entries = append(entries, s.remember(e.name, e.info, p.Summarize(), now))
	}
	s.evictExcept(infos, listed)
	slices.SortFunc(entries, compareCached)
	slices.SortFunc(warnings, func(a, b Warning) int { return strings.Compare(a.Name, b.Name) })
	return entries, warnings, nil
}

func compareCached(a, b *cachedSummary) int { return strings.Compare(a.summary.Name, b.summary.Name) }

// planFileName returns the plan name of a listed entry, or false for anything that is not
// a plan file.
func planFileName(info FileInfo) (string, bool) {
	if info.IsDir {
		return "", false
	}
	name, ok := strings.CutSuffix(path.Base(info.Path), ".md")
	if !ok || ValidateName(name) != nil {
		return "", false
	}
	return name, true
}

// sameAsSorted reports whether hits, all stamped with gen, are exactly the entries of the
// remembered sorted listing. Called with cacheMu held.
func (s *Store) sameAsSorted(hits []*cachedSummary, gen uint64) bool {
	if len(hits) != len(s.shared.sorted) {
		return false
	}
	for _, c := range s.shared.sorted {
		if c.seen != gen {
			return false
		}
	}
	return true
}

type listedPlan struct {
	name string
	info FileInfo
}

// remember caches a summary under the Size and ModifiedAt that LsInfo reported before the
// read, unless the file changed so recently that a same-size rewrite within the file
// system's clock granularity could go unnoticed.
// It returns the entry, cached or not; a cached entry carries its JSON encoding.
func (s *Store) remember(name string, info FileInfo, sum Summary, now time.Time) *cachedSummary {
	c := &cachedSummary{size: info.Size, modified: info.ModifiedAt, summary: sum}
	if info.ModifiedAt == "" {
		return c
	}
	if !s.strict {
		mod, err := time.Parse(time.RFC3339Nano, info.ModifiedAt)
		if err != nil || now.Sub(mod) < racyWindow {
			return c
		}
	}
	c.json = encodeSummary(&c.summary)
	s.shared.cacheMu.Lock()
	s.shared.cache[name] = c
	s.shared.cacheMu.Unlock()
	return c
}

// evictExcept drops the cached summaries of plans that infos, which lists listed plan
// files, no longer has. The set of listed names is built only when the cache holds more
// entries than were listed, so an unchanged folder costs no allocation here.
func (s *Store) evictExcept(infos []FileInfo, listed int) {
	s.shared.cacheMu.Lock()
	defer s.shared.cacheMu.Unlock()
	if len(s.shared.cache) <= listed {
		return
	}
	seen := make(map[string]struct{}, listed)
	for _, info := range infos {
		if name, ok := planFileName(info); ok {
			seen[name] = struct{}{}
		}
	}
	for name := range s.shared.cache {
		if _, ok := seen[name]; !ok {
			delete(s.shared.cache, name)
		}
	}
}
