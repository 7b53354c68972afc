package api

import (
	"context"
	"time"

	"github.com/einoplan/plan/driver"
)

// What a zero field of StoreConfig means.
const (
	DefaultBaseDir         = "/plans"
	DefaultMaxContentBytes = 1 << 20 // 1 MiB
	DefaultHistoryLimit    = 50
)

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
	// HoldTTL is how long an agent's hold on a step lasts without renewal; 0 means holds
	// never expire. A holder renews its hold by any move of its own step (moving its own
	// in_progress step to in_progress again just renews it). Once a hold is older than
	// HoldTTL, a move without a step number takes that step before any pending one, and
	// anyone may move it without a takeover; the revision that does records whose hold
	// expired (Change.Expired, History). The time of each hold is stored in the plan file,
	// written by the clock of the machine that moved the step and judged by the clock of the
	// one reading it: a clock ahead by d ends holds d early, so the clocks of every machine
	// sharing a storage must agree within a small part of HoldTTL (NTP keeps them within
	// milliseconds; keep HoldTTL at minutes, longer than the slowest step between renewals).
	HoldTTL time.Duration
	// ApprovalKey, when set (at least 32 bytes), is the key approvals are sealed with, held
	// by the host in its own secret store: the Store then never reads or writes a key file.
	// Every Store that must agree on approvals (every process on the storage) needs the same
	// key. When nil, the Store keeps a key file beside the plans folder, never in it
	// (docs/plan-mode.md): whoever can read the key can make a plan read as approved, so it
	// must never sit where an agent's tools reach.
	ApprovalKey []byte
	// AdoptLegacyKey lets Migrate adopt an approval key left inside the plans folder, where
	// releases up to 0.1.0 kept it, and only where the folder still holds a plan file of
	// 0.1.0's format: whoever can write plan files could have planted that key, so it is
	// adopted only when a person asks (planctl migrate -adopt-key), and MigrateReport names
	// the approvals it makes valid. Without it, such a key is never used.
	AdoptLegacyKey bool
}

// Change describes one successful mutation. It never carries the plan's body.
type Change struct {
	// Name is the plan changed; empty for ActionResync.
	Name string `json:"name"`
	// Action is the kind of change. A watcher that cannot tell (history does not keep the
	// revision) reports ActionWrite after an ActionResync.
	Action Action `json:"action"`
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
	Progress Progress `json:"progress"`
	// Expired is the agent whose hold on a step had expired (StoreConfig.HoldTTL) when this
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
	// Comment, when not nil, adds a person's comment on the step Comment.Step of an existing
	// plan (0: the plan), saying Comment.Text; the Store fills in the rest, the author from
	// the context's actor (WithActor; "person" when none). Resolve names comments (by ID) a
	// person closes. Both keep the plan's approval, and an agent's tool call can do neither.
	Comment *Comment
	Resolve []string
	// BudgetStep, from 1, makes Budget the budget of that step instead of the plan's: the
	// Store writes it as the step's "(budget …)" (Step.Budget). Without Content, and made by
	// a host (not an agent's tool call), the change keeps the plan's approval: a person's
	// decision, sealed with the approval, which no hand edit of the file can repeat.
	BudgetStep int
}

// StepMove asks to move one checklist step of an existing plan.
type StepMove struct {
	Name string
	// Step is the step's number, from 1; 0 with State in_progress takes the first ready
	// pending step (every step it waits for completed or skipped), whatever changed since
	// IfRevision, so agents taking work never collide. When pending steps remain but none is
	// ready, that is CodeStepBlocked naming what they wait for. 0 with State completed,
	// failed or skipped finishes the one step the mover holds in progress, chosen in the same
	// write; CodeInvalidArgument (reason no_held_step or held_steps) when it holds none or
	// several.
	Step  int
	State StepState
	// Note is appended to the step's line (after " — ") when not empty. On a move that keeps
	// a step in progress (a renewal, a takeover) it replaces the note the previous such move
	// appended, so renewals never grow a plan; never text that was there otherwise.
	Note string
	// Evidence is what shows the step is done (a command and its exit code, test counts, a
	// link, an artifact's hash), for a move to completed, failed or skipped: one paragraph of
	// at most 1,000 bytes, line breaks read as spaces, written after the note as
	// " — evidence: …" and read back as Step.Evidence.
	Evidence string
	// Cost is what the step cost while its holder worked on it (the middleware measures it),
	// written with a move to completed, failed or skipped as " — cost: …", before the
	// evidence, and read back as Step.Cost. nil writes none.
	Cost *StepCost
	// IfRevision guards the move like Update.IfRevision, with one difference: a revision
	// older than the plan's that is still kept in history moves the step anyway when the
	// changes since cannot have made the move wrong, because the list of steps (their text
	// and order) is unchanged and the step itself is unchanged or still allows the move (with
	// a Note: unchanged, or held by the mover). Every plan records the revision at which
	// its steps last changed, so this needs history only to look at the step itself. So
	// agents moving different steps never conflict; a move after the steps were reordered,
	// added or reworded is refused.
	IfRevision *int64
	// By is the agent moving the step: a step it moves to in_progress ends with its tag
	// " (@By)" and is held by it. "" means the actor of the context (a tool call's agent, or
	// WithActor), except in a takeover to in_progress, which then holds nothing; with no
	// actor, the move holds nothing, and moves a step someone holds only with Takeover.
	By string
	// Takeover moves a step that another agent holds. With State in_progress it hands the
	// step to By, to nobody when By is "" (the step stays in progress), and the history names
	// the context's actor as who did it: a host's takeover for an agent that stopped. A step
	// whose hold expired (StoreConfig.HoldTTL) moves without it. By moving its own
	// in_progress step to in_progress again, its holder renews its hold.
	Takeover bool
	// Next, with State completed, failed or skipped, also takes for By, in the same write
	// (one revision, one history entry), the step a move of no step number to in_progress
	// would take, chosen on the plan as the finishing move leaves it: a step that waited only
	// for the finished one is ready. MoveStep then returns that step, in progress and held
	// by By; when no step is ready or pending, it returns the finished step and the move is
	// the finishing move alone, without an error. With another State it is
	// CodeInvalidArgument.
	Next bool
}

// Listing is the result of List: summaries sorted by name, and one warning per plan file
// that could not be read, so "no plans" is never confused with "some failed to load". From
// ListPage, Plans is one page: Total counts every plan that matches, and NextCursor, when
// not empty, continues after the page. The steps and approval a summary points to are
// shared with the Store's cache, which every later List and digest reads: never change them.
type Listing struct {
	Plans      []Summary `json:"plans"`
	Warnings   []Warning `json:"warnings,omitempty"`
	Total      int       `json:"total"`
	NextCursor string    `json:"next_cursor,omitempty"`
}

// ListOptions selects a page of plans, in name order.
type ListOptions struct {
	// Limit is the most plans a page holds; 0 means all.
	Limit int
	// Cursor is the NextCursor of the previous page; "" starts at the first plan.
	Cursor string
	// Status keeps only plans whose status is exactly this; "" keeps all.
	Status string
}

// Warning names a plan file that List could not summarize.
type Warning struct {
	Name    string `json:"name"`
	Code    Code   `json:"code"`
	Message string `json:"message"`
	// Err is the failure with its facts, for callers that render their own words.
	Err *Error `json:"-"`
}

// Revision describes one kept revision of a plan, without its body.
type Revision struct {
	Revision int64 `json:"revision"`
	// Action is the kind of change that made this revision; "" when it is not known (the
	// entry that recorded it was lost to a race or edited by hand).
	Action Action `json:"action,omitempty"`
	// Author is who made the change: the agent whose tool call made it or the actor a host
	// named (WithActor), else for the first revision the plan's author; "" when unknown.
	Author    string    `json:"author,omitempty"`
	UpdatedAt time.Time `json:"updated_at"`
	Title     string    `json:"title"`
	Status    string    `json:"status"`
	// OlderUnverified is set on the oldest revision History returns when the revision before
	// it is kept but cannot be verified: its entry does not match the SHA-256 this revision
	// names (forged, swapped or cut short), or the release before kept it under a CRC-32C.
	// That revision and older ones are not served (GetRevision, Diff, read_plan).
	OlderUnverified bool `json:"older_unverified,omitempty"`
	// ByAgent reports that an agent's tool call made this change; false means a host made
	// it through the Store (a person through planctl or the board, or code), or, with no
	// Action, that nobody knows.
	ByAgent bool `json:"by_agent,omitempty"`
	// Expired names the agent whose hold on step ExpiredStep had expired (its lease,
	// StoreConfig.HoldTTL, ran out) when this change moved that step; "" otherwise.
	Expired     string `json:"expired,omitempty"`
	ExpiredStep int    `json:"expired_step,omitempty"`
	// Rejection is the rejection this change recorded (ActionReject): the revision turned
	// down, by whom and the feedback.
	Rejection *Rejection `json:"rejection,omitempty"`
	// Approved is the revision an approval (ActionApprove) approved; 0 otherwise.
	Approved int64 `json:"approved,omitempty"`
}

// WatchOptions tunes Store.Watch. The zero value gives the defaults.
type WatchOptions struct {
	// Interval is the time between two polls of the polling fallback; default
	// defaultWatchInterval. With a driver.Watcher, used only after its feed ends.
	Interval time.Duration
	// Buffer is how many Changes may wait for the receiver; default defaultWatchBuffer.
	// When they do not fit, the watcher drops changes and delivers one ActionResync as
	// soon as the receiver makes room, so a slow receiver never blocks anything and never
	// grows memory.
	Buffer int
}

// PlanCheck is what an upgrade left to do for one plan.
type PlanCheck struct {
	Name     string `json:"name"`
	Revision int64  `json:"revision"`
	// Format is the plan file's format version (1: written by 0.1.0 or by hand without one).
	Format int64 `json:"format"`
	// Reapprove says why the approval the file carries no longer holds, so the plan needs
	// approving again: "key_missing" (the storage has no approval key), "key_changed" (the
	// file is as the Store wrote it, so it was sealed under another key), "edited" (the file
	// was changed after the Store wrote it); "" when it holds or there is none.
	Reapprove string `json:"reapprove,omitempty"`
	// Convertible lists the kept revisions, newest first, that format 1 kept and Migrate
	// converts; until then they are not served.
	Convertible []int64 `json:"convertible,omitempty"`
	// UnreadableRevision is the kept revision where the chain from the plan file ends at an
	// entry nobody can prove (0: none); it and older ones stay unserved. UnreadableReason
	// says why: "sha256_mismatch" (its bytes do not match the SHA-256 the next revision
	// names) or "crc32c_mismatch" (kept by format 1, its bytes do not match its CRC-32C); in
	// both, or when it is another revision than its name says.
	UnreadableRevision int64  `json:"unreadable_revision,omitempty"`
	UnreadableReason   string `json:"unreadable_reason,omitempty"`
	// NeedsMigrate reports that Migrate would change something: entries to convert, or a
	// plan file of format 1.
	NeedsMigrate bool `json:"needs_migrate,omitempty"`
	// Error is why the plan could not be checked (a file that does not decode, a storage
	// failure); "" when it was.
	Error string `json:"error,omitempty"`
	// NamesNoTools reports an approved plan of format 1, written before "(uses …)" existed,
	// with steps left to do none of which names a tool in "(uses …)": under
	// Config.GatedTools every gated call of it is refused.
	NamesNoTools bool `json:"names_no_tools,omitempty"`
}

// CheckReport is what an upgrade left to do in a plans folder.
type CheckReport struct {
	// Format is the plan file format version this release writes; a plan of a newer one
	// reads, but no change of it is written.
	Format int64       `json:"format"`
	Plans  []PlanCheck `json:"plans"`
	// LegacyKey is the path of an approval key where releases up to 0.1.0 kept it, inside the
	// plans folder; only Migrate with StoreConfig.AdoptLegacyKey moves it beside the folder
	// (an approval given first makes a new key instead). "" when none. Whoever can write
	// plan files may have put it there.
	LegacyKey string `json:"legacy_key,omitempty"`
	// LegacyData reports that some plan file is still in the format of 0.1.0: only then can
	// the key in the folder be 0.1.0's, and only then does Migrate adopt it.
	LegacyData bool `json:"legacy_data,omitempty"`
	// Strays are the files the Store set aside from where its history goes (.stray), for a
	// person to look at and remove.
	Strays []string `json:"strays,omitempty"`
}

// MigrateReport is what Migrate did to one plan.
type MigrateReport struct {
	Name     string `json:"name"`
	Revision int64  `json:"revision"`
	// Converted lists the kept revisions, newest first, converted from format 1: served
	// again by History, GetRevision, Diff and read_plan's since_revision.
	Converted []int64 `json:"converted,omitempty"`
	// Rewritten reports that the plan file was brought to the current format (same revision).
	Rewritten bool `json:"rewritten,omitempty"`
	// UnreadableRevision and UnreadableReason are PlanCheck's: where the chain ends at an
	// entry nobody can prove, which stays unserved.
	UnreadableRevision int64  `json:"unreadable_revision,omitempty"`
	UnreadableReason   string `json:"unreadable_reason,omitempty"`
	// AdoptedKey is the key file inside the plans folder this Migrate adopted (moved beside
	// the folder), "" when none; Validated lists the approvals that hold under it and did
	// not before, in name order.
	AdoptedKey string            `json:"adopted_key,omitempty"`
	Validated  []AdoptedApproval `json:"validated,omitempty"`
	// KeyNotAdopted is a key file inside the plans folder that Migrate left unused: without
	// StoreConfig.AdoptLegacyKey, or where no plan file is in 0.1.0's format (then 0.1.0
	// did not leave it). "" when there is none.
	KeyNotAdopted string `json:"key_not_adopted,omitempty"`
}

// AdoptedApproval is an approval that holds once Migrate adopted a key: the plan, the
// revision approved, and who the file says approved it.
type AdoptedApproval struct {
	Name     string `json:"name"`
	Revision int64  `json:"revision"`
	By       string `json:"by"`
}
