package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/memfs"
)

// Defaults of StoreConfig.
const (
	DefaultBaseDir         = "/plans"
	DefaultMaxContentBytes = 1 << 20
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

// Defaults of the kept history.
const (
	DefaultHistoryLimit    = 50
	defaultHistoryMaxBytes = 8 << 20
)

// minApprovalKey is the shortest key the Store accepts, in bytes.
const minApprovalKey = 32

// StoreConfig configures a Store.
type StoreConfig struct {
	// Backend is where plan files live. Required.
	Backend driver.Backend
	// BaseDir is the folder of plan files inside Backend; default DefaultBaseDir.
	// It must be a clean slash-separated path without "..".
	BaseDir string
	// MaxContentBytes caps a plan's body; default DefaultMaxContentBytes.
	MaxContentBytes int
	// DefaultAuthor is the author recorded when a plan is created without one.
	DefaultAuthor string
	// OnChange, when set, is called after every successful mutation made through this
	// Store (by host code or by the tools of any middleware given this Store), never after a
	// failed one; it runs synchronously, outside the Store's locks. It does not see changes
	// made through other Stores, in this process or another: Store.Watch delivers those.
	OnChange func(ctx context.Context, c Change)
	// HistoryLimit is how many revisions of each plan are kept (History, GetRevision, Diff,
	// read_plan's since_revision, and stale step moves that still apply); 0 means
	// DefaultHistoryLimit. A negative value keeps none, which spares every write its second
	// file but makes every stale change a revision_conflict.
	HistoryLimit int
	// HistoryMaxBytes caps the bytes kept per plan; the newest revision is kept whatever
	// its size. 0 means defaultHistoryMaxBytes. History is pruned every P revisions, P being
	// the larger of 8 and HistoryLimit/2 (every write for a plan over
	// HistoryMaxBytes/(HistoryLimit+P) bytes), so up to P-1 newer entries may be stored
	// beyond both bounds; History never shows more than HistoryLimit.
	HistoryMaxBytes int64
	// ClaimTTL is how long an agent's hold on a step lasts without renewal; 0 means holds
	// never expire. A holder renews its hold by any move of its own step (moving its own
	// in_progress step to in_progress again just renews it). Once a hold is older than
	// ClaimTTL, a move without a step number takes that step before any pending one, and
	// anyone may move it without a takeover; the revision that does records whose hold
	// expired (Change.Expired, History). The time of each hold is stored in the plan file,
	// written by the clock of the machine that moved the step and judged by the clock of the
	// one reading it: a clock ahead by d ends holds d early, so the clocks of every machine
	// sharing a storage must agree within a small part of ClaimTTL (NTP keeps them within
	// milliseconds; keep ClaimTTL at minutes, longer than the slowest step between renewals).
	ClaimTTL time.Duration
	// ApprovalKey, when set (at least 32 bytes), is the key approvals are sealed with, held
	// by the host in its own secret store: the Store then never reads or writes a key file.
	// Every Store that must agree on approvals (every process on the storage) needs the same
	// key. When nil, the Store keeps a key file beside the plans folder, never in it (see
	// approval_seal.go): whoever can read the key can make a plan read as approved, so it
	// must never sit where an agent's tools reach.
	ApprovalKey []byte
}

// Change describes one successful mutation. It never carries the plan's body.
type Change struct {
	// Name is the plan changed; empty for ActionResync.
	Name string `json:"name"`
	// Action is the kind of change. A watcher that cannot tell (history does not keep the
	// revision) reports ActionWrite after an ActionResync.
	Action document.Action `json:"action"`
	// Revision is the plan's revision after the change; for a delete, the last it had.
	Revision int64 `json:"revision"`
	// Created reports the first revision of a plan (or of a name used again after a delete).
	Created bool `json:"created,omitempty"`
	// Title, Status and Author are the plan's header after the change: Author is who wrote
	// the plan first, not who made this change.
	Title  string `json:"title,omitempty"`
	Status string `json:"status,omitempty"`
	Author string `json:"author,omitempty"`
	// Actor is who made this change, as History names it: the agent whose tool call made
	// it or the actor a host named (WithActor); "" when nobody said.
	Actor string `json:"actor,omitempty"`
	// Progress counts the plan's steps by state after the change (zero for a delete).
	Progress document.Progress `json:"progress"`
	// Expired is the agent whose hold on a step had expired (StoreConfig.ClaimTTL) when this
	// change moved that step; "" otherwise.
	Expired string `json:"expired,omitempty"`
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
	// Budget sets what the whole plan may cost, "200k tokens", "1h" or both comma separated
	// (Plan.Budget); a change of it alone keeps the plan's approval.
	Budget string
	// IfRevision guards the write: nil writes whatever is stored, 0 only creates, and n > 0
	// only updates revision n.
	IfRevision *int64
}

// Store owns plan semantics on a Backend: names, revisions, compare-and-set, size caps and
// the list cache. Every Store on the same (Backend, BaseDir) pair in a process shares one
// lock per plan name and one cache, so tools of any agent run and host code never
// interleave a read-check-write of one plan, and writes to different plans never wait for
// each other. Beyond the process the guarantee is what the Backend offers: a driver.Locker
// or a driver.Swapper makes guarded writes atomic across processes; without either it ends at
// the process. Reads take no lock: a reader sees a whole old or a whole new revision as
// long as the Backend's writes are atomic.
type Store struct {
	Backend    driver.Backend
	Dir        string
	maxContent int
	author     string
	onChange   func(ctx context.Context, c Change)
	shared     *sharedState
	locker     driver.Locker
	swapper    driver.Swapper
	limited    driver.LimitedReader
	renamer    driver.Renamer
	once       driver.OnceWriter
	lazy       driver.LazyDeleter
	stamper    driver.FolderStamper
	// keeper is the swapper's own driver.KeepingSwapper, when it has one.
	keeper driver.KeepingSwapper
	// keepWriter is the Backend's own driver.KeepingWriter, used where it has no swapper.
	keepWriter driver.KeepingWriter
	// inProcess: the storage is a MemoryBackend, which no other process writes.
	inProcess bool
	strict    bool
	Now       func() time.Time
	holdTTL   time.Duration
	// historyLimit and historyMaxBytes bound each plan's kept revisions (history_write.go).
	historyLimit    int
	historyMaxBytes int64
	// decoded spares re-reads of an unchanged plan file its decode (store_memo.go).
	decoded decodedMemo
	// GivenKey is StoreConfig.ApprovalKey, a copy (approval_seal.go).
	GivenKey []byte
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
	if cfg.ApprovalKey != nil && len(cfg.ApprovalKey) < minApprovalKey {
		return nil, fmt.Errorf("plan: ApprovalKey has %d bytes; it needs at least %d", len(cfg.ApprovalKey), minApprovalKey)
	}
	s := &Store{
		Backend:    cfg.Backend,
		Dir:        dir,
		maxContent: cfg.MaxContentBytes,
		author:     cfg.DefaultAuthor,
		onChange:   cfg.OnChange,
		shared:     sharedFor(cfg.Backend, dir),
		Now:        time.Now,
		holdTTL:    max(cfg.ClaimTTL, 0),
		GivenKey:   bytes.Clone(cfg.ApprovalKey),
	}
	if s.maxContent == 0 {
		s.maxContent = DefaultMaxContentBytes
	}
	s.historyLimit, s.historyMaxBytes = cfg.HistoryLimit, cfg.HistoryMaxBytes
	switch {
	case s.historyLimit == 0:
		s.historyLimit = DefaultHistoryLimit
	case s.historyLimit < 0:
		s.historyLimit = -1 // off
	}
	if s.historyMaxBytes <= 0 {
		s.historyMaxBytes = defaultHistoryMaxBytes
	}
	s.locker, _ = lockerOf(cfg.Backend)
	s.swapper, _ = capability[driver.Swapper](cfg.Backend)
	s.limited, _ = capability[driver.LimitedReader](cfg.Backend)
	s.renamer, _ = capability[driver.Renamer](cfg.Backend)
	s.once, _ = capability[driver.OnceWriter](cfg.Backend)
	s.lazy, _ = capability[driver.LazyDeleter](cfg.Backend)
	s.stamper, _ = capability[driver.FolderStamper](cfg.Backend)
	if s.stamper == nil {
		s.stamper, _ = memoryStamps(cfg.Backend)
	}
	if s.swapper != nil {
		s.keeper = keepingOf[driver.KeepingSwapper](s.swapper)
	} else {
		s.keepWriter = keepingOf[driver.KeepingWriter](cfg.Backend)
	}
	_, s.inProcess = capability[*memfs.Backend](cfg.Backend)
	if st, ok := capability[driver.StrictModTimer](cfg.Backend); ok {
		s.strict = st.StrictModTimes()
	}
	return s, nil
}

// ContentCap returns the cap on a plan's body.
func (s *Store) ContentCap() int { return s.maxContent }

// cleanBaseDir turns BaseDir into one canonical folder, so "plans", "/plans" and "/plans/"
// are one folder (and so share one lock). "" is DefaultBaseDir; a path with a ".." element, a
// NUL byte or invalid UTF-8 is refused rather than guessed at.
func cleanBaseDir(dir string) (string, error) {
	if dir == "" {
		return DefaultBaseDir, nil
	}
	bad := strings.ContainsRune(dir, 0) || !utf8.ValidString(dir)
	for _, part := range strings.Split(dir, "/") {
		bad = bad || part == ".."
	}
	if bad {
		return "", fmt.Errorf("plan: BaseDir %q must be a slash-separated path without \"..\", e.g. %q", dir, DefaultBaseDir)
	}
	return path.Clean("/" + dir), nil
}

// planPath is BaseDir/name.md; names never need cleaning, so no path.Join.
func (s *Store) planPath(name string) string {
	if s.Dir == "/" {
		return "/" + name + ".md"
	}
	return s.Dir + "/" + name + ".md"
}

func (s *Store) tombstonePath(name string) string { return path.Join(s.Dir, ".deleted", name) }

func Canceled(ctx context.Context) *document.Error {
	e := document.Fail(document.Error{Code: document.CodeCanceled, Reason: document.ReasonCanceled})
	e.Err = ctx.Err()
	return e
}

func BackendError(what string, err error) *document.Error {
	e := document.Fail(document.Error{Code: document.CodeBackendError, Reason: document.ReasonStorage})
	e.Message = "the plan storage failed to " + what
	e.Err = err
	return e
}

// changeSinkKey marks a context whose changes also go to a middleware (its OnChange and its
// run's events), so several middlewares can share one Store and each hears its own calls.
type changeSinkKey struct{}

func WithChangeSink(ctx context.Context, sink func(context.Context, Change)) context.Context {
	return context.WithValue(ctx, changeSinkKey{}, sink)
}

// notify reports a successful mutation to StoreConfig.OnChange and to the sink of the
// context it was made with; nothing is computed when neither listens.
func (s *Store) notify(ctx context.Context, action document.Action, p *document.Plan, created bool) {
	sink, _ := ctx.Value(changeSinkKey{}).(func(context.Context, Change))
	if s.onChange == nil && sink == nil {
		return
	}
	c := Change{Name: p.Name, Action: action, Revision: p.Revision, Created: created,
		Title: p.Title, Status: p.Status, Author: p.Author, Actor: document.ActorOf(ctx)}
	if created && c.Actor == "" {
		c.Actor = p.Author // as History names who created it
	}
	if action != document.ActionDelete {
		c.Progress = document.ComputeProgress(document.StepsOf(p.Content))
		c.Expired = document.ExpiredHolder(p.ExpiredHold)
	}
	if s.onChange != nil {
		s.onChange(ctx, c)
	}
	if sink != nil {
		sink(ctx, c)
	}
}

// HoldLive reports whether step st of p, held by someone, is still held: its lease (ClaimTTL)
// has not run out. The tool gate asks it, so an expired hold permits no side effect.
func (s *Store) HoldLive(p *document.Plan, st document.Step) bool {
	return !document.HoldExpired(p, st, s.holdTTL, s.Now())
}
