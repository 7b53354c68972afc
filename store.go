package plan

import (
	"context"
	"time"

	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/internal/engine"
)

// What the Store takes and reports is declared in package api, where `go doc` shows the
// fields: `go doc github.com/einoplan/plan/api StepMove`.

// StoreConfig configures a Store: its Backend and folder, caps, history, holds and key.
type StoreConfig = api.StoreConfig

// Update is a create-or-update request; empty fields keep what is stored.
type Update = api.Update

// StepMove asks to move one checklist step of an existing plan (MoveStep).
type StepMove = api.StepMove

// Listing is one page of plan summaries (ListPage), with what could not be read.
type Listing = api.Listing

// ListOptions selects a page of plans, in name order; the zero value selects all.
type ListOptions = api.ListOptions

// Change describes one successful mutation (OnChange, Watch). It never carries a body.
type Change = api.Change

// Revision describes one kept revision of a plan, without its body (History).
type Revision = api.Revision

// WatchOptions tunes Watch. The zero value gives the defaults.
type WatchOptions = api.WatchOptions

// CheckReport is what an upgrade left to do in a plans folder (Check).
type CheckReport = api.CheckReport

// MigrateReport is what Migrate did to one plan.
type MigrateReport = api.MigrateReport

// Store owns plan semantics on a Backend: names, revisions, compare-and-set, size caps and
// the list cache. Every Store on the same (Backend, BaseDir) pair in a process shares one
// lock per plan name and one cache, so tools of any agent run and host code never
// interleave a read-check-write of one plan, and writes to different plans never wait for
// each other. Beyond the process the guarantee is what the Backend offers: a driver.Locker
// or a driver.Swapper makes guarded writes atomic across processes; without either it ends at
// the process. Reads take no lock: a reader sees a whole old or a whole new revision as
// long as the Backend's writes are atomic.
type Store struct {
	e *engine.Store
}

// NewStore validates cfg and returns a Store.
func NewStore(cfg *StoreConfig) (*Store, error) {
	e, err := engine.NewStore(cfg)
	if err != nil {
		return nil, err
	}
	return &Store{e: e}, nil
}

// Get returns the plan called name: not_found, corrupt, too_large or backend_error
// otherwise.
func (s *Store) Get(ctx context.Context, name string) (*Plan, error) {
	return s.e.Get(ctx, name)
}

// GetRevision returns revision rev of a plan while it is kept: the current plan, or an
// entry of its history verified by the SHA-256 chain from the plan file; not_found otherwise:
// reason no_revision when never kept or pruned, revision_mismatch when the entry kept for it
// (or for a revision between) does not match its SHA-256 (forged, swapped or cut short),
// revision_unverifiable when the release before kept it under a CRC-32C.
func (s *Store) GetRevision(ctx context.Context, name string, rev int64) (*Plan, error) {
	return s.e.GetRevision(ctx, name, rev)
}

// ListPage summarizes the plans in BaseDir, sorted by name: those after opts.Cursor whose
// status matches, at most opts.Limit of them (the zero ListOptions lists all), and one
// warning per plan file that could not be read, with the first page only, so "no plans" is
// never confused with "some failed to load". A summary is re-read only when LsInfo reports a
// different Size or ModifiedAt than when it was cached, and the Store's own writes drop their
// entry, so changes by other processes are seen on the next call. The Listing is the
// caller's own: changing it changes nothing the Store or another caller reads.
func (s *Store) ListPage(ctx context.Context, opts ListOptions) (*Listing, error) {
	return s.e.ListPage(ctx, opts)
}

// History returns the kept revisions of a plan, newest first; the current revision is
// always the first. Entries that cannot be shown to be what that revision was are left out,
// and so is everything older; when the entry the oldest revision shown names is refused, its
// OlderUnverified says so.
func (s *Store) History(ctx context.Context, name string) ([]Revision, error) {
	return s.e.History(ctx, name)
}

// Diff returns what changed in a plan from revision from to revision to (both kept): a
// line per changed header field (title, status, author), then a unified diff of the body
// with three lines of context. Equal revisions give "".
func (s *Store) Diff(ctx context.Context, name string, from, to int64) (string, error) {
	return s.e.Diff(ctx, name, from, to)
}

// Put creates or updates a plan as u says, atomically with the revision check. With
// u.Comment or u.Resolve it records a person's comment on a step, or closes comments, as the
// context's actor (WithActor): an agent's tool call cannot (invalid_argument).
func (s *Store) Put(ctx context.Context, u Update) (*Plan, error) {
	return s.e.Put(ctx, u)
}

// SetStatus changes only the status of an existing plan; it never creates one. An ifRevision
// older than the plan still sets it when the status has not changed since that revision.
func (s *Store) SetStatus(ctx context.Context, name, status string, ifRevision *int64) (*Plan, error) {
	return s.e.SetStatus(ctx, name, status, ifRevision)
}

// MoveStep moves a checklist step as m says, atomically with the checks: a step held by
// another agent is CodeStepHeld (naming the holder) unless m.Takeover; a step moved to
// in_progress or completed while steps it waits for are not completed or skipped is
// CodeStepBlocked (naming them in Error.Waits); a stale IfRevision is
// CodeRevisionConflict unless the move commutes with the changes since (see StepMove). It
// returns the plan and the updated step; with m.Next, the step taken (see StepMove.Next).
func (s *Store) MoveStep(ctx context.Context, m StepMove) (*Plan, Step, error) {
	return s.e.MoveStep(ctx, m)
}

// Delete removes a plan. An unguarded delete also removes an entry that does not decode or
// can never be a plan (a link, a folder, a special file), which is how such a name is
// recovered. The tombstone names who deleted the plan (the context's actor), for watchers in
// other processes. On a Backend that is a driver.Renamer (and not a driver.Swapper) the plan
// file itself is moved to its tombstone when nobody is named or the tombstone cannot be
// written, so deleting needs no new data blocks and works on a full disk; when a delete cannot
// complete, the plan is left as it was.
func (s *Store) Delete(ctx context.Context, name string, ifRevision *int64) (int64, error) {
	return s.e.Delete(ctx, name, ifRevision)
}

// Approve records that by approved revision rev of a plan, only if the plan is still at
// rev (revision_conflict otherwise, and nothing is written): a person approves what they
// saw, never what changed since. The approval is written as revision rev+1, with the same
// body; Plan.Approval.Revision is rev.
func (s *Store) Approve(ctx context.Context, name string, rev int64, by string) (*Plan, error) {
	return s.e.Approve(ctx, name, rev, by)
}

// Revoke withdraws a plan's approval; the history names the context's actor (WithActor) as
// who did. A plan that is not approved is returned as it is, without a write.
func (s *Store) Revoke(ctx context.Context, name string) (*Plan, error) {
	return s.e.Revoke(ctx, name)
}

// Reject records that by turned down revision rev of a plan, with feedback, only if the plan
// is still at rev (revision_conflict otherwise, and nothing is written): a person rejects
// what they saw. It is a change of its own (ActionReject, revision rev+1, the body as it
// was): History keeps it with by and the feedback, Watch delivers it, and a run waiting
// with WaitDecision gets it. An approval the plan carried is withdrawn; Plan.Rejection
// holds the rejection until the plan is approved or a run asks again. comments, when given,
// are people's comments on steps (api.Comment: Step and Text) added in the same write, which
// the agent must answer before it asks again.
func (s *Store) Reject(ctx context.Context, name string, rev int64, by, feedback string, comments ...api.Comment) (*Plan, error) {
	return s.e.Reject(ctx, name, rev, by, feedback, comments...)
}

// WaitDecision waits until a person decides on revision rev of plan name, on any Store of
// the same storage (any process or machine: the board, planctl, another host), and returns
// the decision: Approved when the plan is approved at rev or a later revision, not Approved
// with By and Feedback when revision rev was rejected (Store.Reject). A decision made
// before the call counts while the plan, or the history it keeps, still shows it. It
// returns not_found when the plan is deleted, and canceled when ctx ends first. A host
// passes the decision to the paused run as the resume data of its ApprovalRequest
// (ApprovalRequest.Revision is rev).
func (s *Store) WaitDecision(ctx context.Context, name string, rev int64) (ApprovalDecision, error) {
	return s.e.WaitDecision(ctx, name, rev)
}

// HeldUntil is when the hold on step number of p runs out unless its holder renews it
// (StoreConfig.HoldTTL), as every Store on the storage judges it; zero when the Store has
// no lease, or the step is not held in progress.
func (s *Store) HeldUntil(p *Plan, number int) time.Time {
	return s.e.HeldUntil(p, number)
}

// Watch delivers a Change for every change that any process or machine makes to the
// plans in BaseDir, the Store's own included, until ctx ends; then the channel is closed.
//
// The plans as they stand when Watch returns are the starting point: only later
// changes are delivered, so call Watch first and then List, and nothing falls between
// the two. For each plan, Changes come in revision order with consecutive revisions (a
// file edited by hand without a new revision is delivered with the same one); a watcher
// that cannot vouch for that (a revision that moved by more than one since the
// last Change, a new plan first seen past revisions it cannot show, a full buffer, a feed
// that lost events, a plan deleted past the last revision delivered) first sends one
// ActionResync and then goes on. A delete carries the last revision the watcher saw, and
// as its Actor who deleted the plan, as the plan's tombstone records.
//
// Where the Store keeps history (the default), a watcher misses nothing history still
// keeps: a plan that moved on by several revisions since the last Change is delivered
// revision by revision, in order, each with the Action and Actor its plan file records
// (write, status, step, approve, revoke), and a plan deleted and created again as its
// delete, then its create. Only revisions history no longer has give way to one
// ActionResync, followed by those it still keeps; a plan edited by hand gives way to the
// latest state, as ActionWrite (or ActionApprove when it gained an approval), after an
// ActionResync when revisions were skipped. Created means the plan was not listed before.
// A plan whose file stops decoding is neither changed nor deleted until it decodes again
// or is removed.
//
// How changes are found:
//   - A Backend that is a driver.Watcher (found through Unwrap too) pushes them: no polling at all.
//   - LocalBackend is polled every Interval, but an idle poll is one stat of the plans
//     folder: a plan write or delete renames or removes a file there, which changes the
//     folder's modification time. The folder is listed when that stamp moved, while it is
//     under two seconds old (file-system clocks are coarse), and every five seconds anyway
//     for plan files rewritten in place. Polling was chosen over file-system notifications
//     because it needs no dependency or per-platform code and has no per-user watch
//     limit, and an idle poll costs almost nothing (see BENCHMARKS.md).
//   - MemoryBackend (or a wrapper that unwraps to one) is polled every Interval, but an
//     idle poll reads its folder stamp, a count of changes, and lists nothing.
//   - Any other Backend is polled every Interval with one LsInfo. Thanks to the Store's
//     list cache, which keys on Size and ModifiedAt, an idle poll reads no file, and only
//     changed plans are read.
//
// Without history, polling coalesces: several writes to one plan between two polls arrive
// as one Change, preceded by an ActionResync. A delete and a re-create between two polls
// look like one write. A Backend error during a poll is retried at the next one.
func (s *Store) Watch(ctx context.Context, options ...WatchOptions) (<-chan Change, error) {
	return s.e.Watch(ctx, options...)
}

// Check reports, for every plan in BaseDir, what an upgrade left to do: approvals to give
// again and why, kept revisions to convert or that cannot be read, the file's format; and
// for the folder an approval key still where 0.1.0 kept it and the files set aside. It only
// reads: it creates, moves and removes nothing (not even the key, which a read of an
// approved plan would move).
func (s *Store) Check(ctx context.Context) (*CheckReport, error) {
	return s.e.Check(ctx)
}

// Migrate converts what an upgrade left in the plan's files (see Check): the kept revisions
// of format 1 whose CRC-32C chain verifies, and the plan file's format line. The plan file
// keeps its revision, body, holds and approval; its rewrite is a compare-and-swap under the
// plan's locks, started again from a fresh read should another writer change the plan
// meanwhile, so no write is lost. Running it again changes nothing. A plan of a newer format
// is refused (newer_format).
func (s *Store) Migrate(ctx context.Context, name string) (MigrateReport, error) {
	return s.e.Migrate(ctx, name)
}
