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

	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/localfs"
	"github.com/einoplan/plan/internal/memfs"
)

// Defaults of StoreConfig.
const (
	DefaultBaseDir         = api.DefaultBaseDir
	DefaultMaxContentBytes = api.DefaultMaxContentBytes
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
	DefaultHistoryLimit    = api.DefaultHistoryLimit
	defaultHistoryMaxBytes = 8 << 20
)

// minApprovalKey is the shortest key the Store accepts, in bytes.
const minApprovalKey = 32

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
	// local is the LocalBackend the Backend is or unwraps to, whose plan files are read
	// even with other names (localfs.ReadLinked).
	local *localfs.Backend
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
	// decoded spares re-reads of an unchanged plan file its decode (store_read.go).
	decoded decodedMemo
	// adoptKey is StoreConfig.AdoptLegacyKey (approval_seal.go).
	adoptKey bool
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
		holdTTL:    max(cfg.HoldTTL, 0),
		GivenKey:   bytes.Clone(cfg.ApprovalKey),
		adoptKey:   cfg.AdoptLegacyKey,
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
	s.local, _ = capability[*localfs.Backend](cfg.Backend)
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

// HoldLive reports whether step st of p, held by someone, is still held: its lease (HoldTTL)
// has not run out. The tool gate asks it, so an expired hold permits no side effect.
func (s *Store) HoldLive(p *document.Plan, st document.Step) bool {
	return !document.HoldExpired(p, st, s.holdTTL, s.Now())
}

// The Store's requests and reports, declared in package api.
type (
	StoreConfig   = api.StoreConfig
	Change        = api.Change
	Update        = api.Update
	StepMove      = api.StepMove
	Listing       = api.Listing
	ListOptions   = api.ListOptions
	Warning       = api.Warning
	Revision      = api.Revision
	WatchOptions  = api.WatchOptions
	PlanCheck     = api.PlanCheck
	CheckReport   = api.CheckReport
	MigrateReport = api.MigrateReport
	// AdoptedApproval is an approval a key Migrate adopted makes valid.
	AdoptedApproval = api.AdoptedApproval
)
