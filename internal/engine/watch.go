package engine

import (
	"context"
	"errors"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
)

// Defaults of WatchOptions.
const (
	defaultWatchInterval = 100 * time.Millisecond
	defaultWatchBuffer   = 256
)

// Watch is plan.Store.Watch, whose doc comment is the contract.
func (s *Store) Watch(ctx context.Context, options ...WatchOptions) (<-chan Change, error) {
	var opts watchOptions
	if len(options) > 0 {
		opts.WatchOptions = options[0]
	}
	return s.watch(ctx, opts)
}

// watchOptions are WatchOptions with what tests drive: tick replaces the ticker, fullScan
// DefaultFullScan.
type watchOptions struct {
	WatchOptions
	tick     <-chan time.Time
	fullScan time.Duration
}

func (s *Store) watch(ctx context.Context, opts watchOptions) (<-chan Change, error) {
	if opts.Interval < 0 || opts.Buffer < 0 {
		return nil, errors.New("plan: WatchOptions.Interval and Buffer must not be negative")
	}
	if opts.Interval == 0 {
		opts.Interval = defaultWatchInterval
	}
	if opts.Buffer == 0 {
		opts.Buffer = defaultWatchBuffer
	}
	if opts.fullScan == 0 {
		opts.fullScan = DefaultFullScan
	}
	w := &watcher{s: s, opts: opts, out: make(chan Change, opts.Buffer), known: map[string]*cachedSummary{}}
	w.stamper = s.stamper
	var events <-chan driver.FileEvent
	if feed, ok := capability[driver.Watcher](s.Backend); ok {
		var err error
		if events, err = feed.WatchFiles(ctx, s.Dir); err != nil {
			if ctx.Err() != nil {
				return nil, Canceled(ctx)
			}
			return nil, BackendError("watch "+s.Dir, err)
		}
	}
	// The snapshot is taken after subscribing and after stamping the folder, so no change
	// falls between them.
	if w.stamper != nil {
		if st, _, err := w.stamper.FolderStamp(ctx, s.Dir); err == nil {
			w.stamp = st
		}
	}
	entries, warnings, err := s.list(ctx)
	if err != nil {
		return nil, err
	}
	if failedReads(warnings) {
		w.stamp = "" // a plan that could not be read is looked at again at the first poll
	}
	for _, e := range entries {
		w.known[e.summary.Name] = e
	}
	go w.run(ctx, events)
	return w.out, nil
}

// watcher is the state of one Watch: what it last delivered per plan, and whether it owes
// its receiver a resync.
type watcher struct {
	s       *Store
	opts    watchOptions
	out     chan Change
	stamper driver.FolderStamper
	known   map[string]*cachedSummary // per plan, the summary last delivered or listed
	behind  bool                      // changes were dropped: an ActionResync is owed
	stamp   string                    // the folder's stamp before the last listing
}

// run feeds w.out until ctx ends, from events when the Backend pushes them, else by
// polling; a feed that ends early gives way to polling after a resync.
func (w *watcher) run(ctx context.Context, events <-chan driver.FileEvent) {
	defer close(w.out)
	for events != nil {
		select {
		case <-ctx.Done():
			return
		case w.owed() <- Change{Action: document.ActionResync}:
			w.behind = false
		case ev, ok := <-events:
			switch {
			case !ok:
				events = nil
				w.resync()
				w.relist(ctx)
			case ev.Resync:
				w.resync()
				w.relist(ctx)
			default:
				w.event(ctx, ev)
			}
		}
	}
	w.poll(ctx)
}

// poll lists the folder every Interval, skipping the listing while the folder's stamp
// says nothing changed.
func (w *watcher) poll(ctx context.Context) {
	tick := w.opts.tick
	if tick == nil {
		t := time.NewTicker(w.opts.Interval)
		defer t.Stop()
		tick = t.C
	}
	lastFull := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case w.owed() <- Change{Action: document.ActionResync}:
			w.behind = false
			continue
		case <-tick:
		}
		var st string
		stamped := false
		if w.stamper != nil {
			var recent bool
			var err error
			st, recent, err = w.stamper.FolderStamp(ctx, w.s.Dir)
			if err == nil && st == w.stamp && !recent && time.Since(lastFull) < w.opts.fullScan {
				continue
			}
			stamped = err == nil
		}
		lastFull = time.Now()
		if w.relist(ctx) && stamped {
			w.stamp = st // only a listing that came through may be vouched for
		}
	}
}

// failedReads reports whether a listing could not read some plan for a reason that may
// pass (a backend error, not a corrupt file): a poll must look at it again.
func failedReads(warnings []Warning) bool {
	return slices.ContainsFunc(warnings, func(w Warning) bool { return w.Code == document.CodeBackendError })
}

// relist compares a fresh listing with what was delivered and sends the differences,
// reporting whether the listing came through with every plan read. A failed listing
// changes nothing; the next one catches up.
func (w *watcher) relist(ctx context.Context) bool {
	entries, warnings, err := w.s.relist(ctx)
	if err != nil {
		return false
	}
	var changes []Change
	gap := false
	found := 0
	for _, e := range entries {
		if _, ok := w.known[e.summary.Name]; ok {
			found++
		}
		cs, g := w.observe(ctx, e)
		gap = gap || g
		changes = append(changes, cs...)
	}
	for _, wn := range warnings {
		if _, ok := w.known[wn.Name]; ok {
			found++ // unreadable, not gone
		}
	}
	if found < len(w.known) {
		present := make(map[string]struct{}, len(entries)+len(warnings))
		for _, e := range entries {
			present[e.summary.Name] = struct{}{}
		}
		for _, wn := range warnings {
			present[wn.Name] = struct{}{}
		}
		for name, k := range w.known {
			if _, ok := present[name]; !ok {
				c := deleteChange(name, k)
				// The tombstone tells who deleted the plan, and whether it moved on unseen first.
				if rev, by := w.s.lastDeletion(ctx, name); rev >= k.summary.Revision {
					c.Actor = by
					gap = gap || rev > k.summary.Revision
				}
				changes = append(changes, c)
				delete(w.known, name)
			}
		}
	}
	if gap {
		w.resync()
	}
	for _, c := range changes {
		w.send(c)
	}
	return !failedReads(warnings)
}

// observe records e as the latest summary of its plan and returns the Changes to deliver:
// where history keeps them, each revision since the one last delivered, in order, with its
// action and actor; otherwise one write (or approve) for the latest. gap reports that
// revisions were skipped or went backwards, so a resync is owed before the changes.
func (w *watcher) observe(ctx context.Context, e *cachedSummary) (changes []Change, gap bool) {
	name := e.summary.Name
	k, known := w.known[name]
	if known && (k == e || sameSummary(&k.summary, &e.summary)) {
		return nil, false
	}
	w.known[name] = e
	from := int64(0)
	if known {
		from = k.summary.Revision
	}
	if kept, last, ok := w.s.keptChanges(ctx, name, from); ok {
		w.known[name] = last
		first := &kept[0]
		if !known {
			// History reaching the create vouches for every revision; else some went unseen.
			gap = !first.Created
			first.Created = true // the watcher had not listed it
			return kept, gap
		}
		gap = first.Revision != from+1
		if first.Created {
			// The plan the watcher knew was deleted before this one was created.
			del := deleteChange(name, k)
			if rev, by := w.s.lastDeletion(ctx, name); rev == from {
				del.Actor = by
			}
			kept = append([]Change{del}, kept...)
		}
		return kept, gap
	}
	c := Change{Name: name, Action: document.ActionWrite, Revision: e.summary.Revision, Created: !known,
		Title: e.summary.Title, Status: e.summary.Status, Author: e.summary.Author, Progress: e.summary.Progress}
	if !known {
		return []Change{c}, e.summary.Revision > 1 // nothing shows the revisions before
	}
	if k.summary.Approval == nil && e.summary.Approval != nil && e.summary.Revision == k.summary.Revision+1 {
		c.Action = document.ActionApprove // only an approval gives a plan one
	}
	return []Change{c}, e.summary.Revision != k.summary.Revision && e.summary.Revision != k.summary.Revision+1
}

func sameSummary(a, b *document.Summary) bool {
	return a.Revision == b.Revision && a.Title == b.Title && a.Status == b.Status && a.Author == b.Author &&
		a.Progress == b.Progress && a.UpdatedAt.Equal(b.UpdatedAt)
}

// deleteChange is the delete of a plan last delivered as k (nil: never delivered). Who
// deleted it is the caller's to add, from the plan's tombstone.
func deleteChange(name string, k *cachedSummary) Change {
	c := Change{Name: name, Action: document.ActionDelete}
	if k != nil {
		c.Revision, c.Title, c.Status, c.Author = k.summary.Revision, k.summary.Title, k.summary.Status, k.summary.Author
	}
	return c
}

// event turns one pushed driver.FileEvent into a Change. Files that are not plans directly in
// BaseDir (tombstones, lock and temp files) and contents that do not decode are ignored.
func (w *watcher) event(ctx context.Context, ev driver.FileEvent) {
	p := path.Clean("/" + strings.TrimPrefix(ev.Path, "/"))
	if path.Dir(p) != w.s.Dir {
		return
	}
	name, ok := planFileName(driver.FileInfo{Path: p})
	if !ok {
		return
	}
	if ev.Deleted {
		k := w.known[name]
		delete(w.known, name)
		c := deleteChange(name, k)
		// A tombstone at the revision last delivered names who deleted it; a later one
		// belongs to events still to come.
		if k != nil {
			if rev, by := w.s.lastDeletion(ctx, name); rev == k.summary.Revision {
				c.Actor = by
			}
		}
		w.send(c)
		return
	}
	pl, err := document.DecodeSealed(name, ev.Content)
	if err != nil {
		return
	}
	w.s.checkApprovalSeal(ctx, pl)
	if k, ok := w.known[name]; ok && pl.Revision < k.summary.Revision {
		return // already delivered, or part of the starting snapshot
	}
	cs, gap := w.observe(ctx, &cachedSummary{summary: document.Summarize(pl)})
	if gap {
		w.resync()
	}
	for _, c := range cs {
		w.send(c)
	}
}

// send delivers c without ever blocking: when the buffer is full, c is dropped and a
// resync is owed.
func (w *watcher) send(c Change) {
	if w.behind {
		w.flush()
		if w.behind {
			return
		}
	}
	select {
	case w.out <- c:
	default:
		w.behind = true
	}
}

// resync owes the receiver one ActionResync and sends it if there is room.
func (w *watcher) resync() {
	w.behind = true
	w.flush()
}

func (w *watcher) flush() {
	select {
	case w.out <- Change{Action: document.ActionResync}:
		w.behind = false
	default:
	}
}

// owed is the channel to send an owed resync on, or nil (never ready) when none is owed.
func (w *watcher) owed() chan<- Change {
	if w.behind {
		return w.out
	}
	return nil
}

// keptChanges returns the Changes history keeps of a plan after revision from (0: none
// known), up to the revision it has now, one per revision in order, each with the action
// and actor its plan file records, and the summary of the last. They go back to from+1 or
// to the plan's create where history still keeps it, else as far as it does. ok is false
// when history is off, a revision was edited by hand, or the plan is gone or did not move on.
func (s *Store) keptChanges(ctx context.Context, name string, from int64) (changes []Change, last *cachedSummary, ok bool) {
	if !s.historyOn() {
		return nil, nil, false
	}
	cur, _, err := s.load(ctx, name)
	if err != nil || cur == nil || cur.Revision <= from {
		return nil, nil, false
	}
	kept, err := s.keptHistory(ctx, cur, max(from+1, s.oldestShown(cur.Revision)))
	if err != nil {
		return nil, nil, false
	}
	changes = make([]Change, 0, len(kept))
	for i := len(kept) - 1; i >= 0; i-- {
		p := kept[i].plan
		if p.Action == "" {
			return nil, nil, false // edited by hand: nobody known made this revision
		}
		sum := document.Summarize(p)
		last = &cachedSummary{summary: sum}
		changes = append(changes, Change{Name: name, Action: p.Action, Revision: p.Revision, Created: p.Created,
			Title: sum.Title, Status: sum.Status, Author: sum.Author, Actor: p.ChangedBy, Progress: sum.Progress, Expired: document.ExpiredHolder(p.ExpiredHold)})
	}
	return changes, last, true
}
