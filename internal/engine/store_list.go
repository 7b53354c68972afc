package engine

import (
	"context"
	"errors"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
)

func (s *Store) forget(name string) {
	s.shared.cacheMu.Lock()
	delete(s.shared.cache, name)
	s.shared.stamped = nil
	s.shared.cacheMu.Unlock()
}

// List is ListPage of every plan.
func (s *Store) List(ctx context.Context) (*Listing, error) {
	return s.ListPage(ctx, ListOptions{})
}

// ListPage is plan.Store.ListPage, whose doc comment is the contract.
func (s *Store) ListPage(ctx context.Context, opts ListOptions) (*Listing, error) {
	entries, warnings, err := s.list(ctx)
	if err != nil {
		return nil, err
	}
	page := pageOf(entries, opts)
	out := &Listing{Plans: make([]document.Summary, len(page.entries)), Total: page.total, NextCursor: page.next}
	for i, c := range page.entries {
		out.Plans[i] = c.summary
	}
	detachSummaries(out.Plans)
	if opts.Cursor == "" && len(warnings) > 0 {
		out.Warnings = slices.Clone(warnings) // the stray warnings a vouched listing keeps are shared
		for i, w := range out.Warnings {
			if w.Err != nil {
				e := *w.Err
				out.Warnings[i].Err = &e
			}
		}
	}
	return out, nil
}

// detachSummaries gives sums, copied from the list cache, steps and approvals of their own,
// so that nothing a caller changes in a Listing reaches the cache (and with it every agent's
// digest). Each kind of copy shares one array for the whole page: a few allocations per
// List, however many plans it holds.
func detachSummaries(sums []document.Summary) {
	var steps, approvals, afters int
	for i := range sums {
		for _, st := range [...]*document.Step{sums[i].CurrentStep, sums[i].NextStep} {
			if st != nil {
				steps++
				afters += len(st.After)
			}
		}
		if sums[i].Approval != nil {
			approvals++
		}
	}
	stepCopies := make([]document.Step, 0, steps)
	approvalCopies := make([]document.Approval, 0, approvals)
	afterCopies := make([]int, 0, afters)
	detach := func(st *document.Step) *document.Step {
		if st == nil {
			return nil
		}
		stepCopies = append(stepCopies, *st)
		c := &stepCopies[len(stepCopies)-1]
		if st.After != nil {
			n := len(afterCopies)
			afterCopies = append(afterCopies, st.After...)
			c.After = afterCopies[n:len(afterCopies):len(afterCopies)]
		}
		return c
	}
	for i := range sums {
		sums[i].CurrentStep = detach(sums[i].CurrentStep)
		sums[i].NextStep = detach(sums[i].NextStep)
		if a := sums[i].Approval; a != nil {
			approvalCopies = append(approvalCopies, *a)
			sums[i].Approval = &approvalCopies[len(approvalCopies)-1]
		}
	}
}

// Summaries is every plan's summary in name order, shared with the list cache (read only),
// and how many plans could not be read: the digest's view of List, without a copy.
func (s *Store) Summaries(ctx context.Context) ([]*document.Summary, int, error) {
	entries, warnings, err := s.list(ctx)
	if err != nil {
		return nil, 0, err
	}
	return s.summariesOf(entries), len(warnings), nil
}

// summariesOf is the summaries of entries, a listing no one changes once returned. The
// last one made is kept with the listing it was made of, so while the folder's stamp
// hands out the same listing, each run and model call gets the same slice back without a
// pass over every plan.
func (s *Store) summariesOf(entries []*cachedSummary) []*document.Summary {
	s.shared.cacheMu.Lock()
	defer s.shared.cacheMu.Unlock()
	if kept := s.shared.summariesFor; len(kept) == len(entries) && len(kept) > 0 && &kept[0] == &entries[0] {
		return s.shared.summaries
	}
	out := make([]*document.Summary, len(entries))
	for i, c := range entries {
		out[i] = &c.summary
	}
	s.shared.summariesFor, s.shared.summaries = entries, out
	return out
}

// listPage is one page of cached summaries.
type listPage struct {
	entries []*cachedSummary
	total   int    // entries matching the status filter, on every page
	next    string // the cursor after this page, "" on the last
}

// pageOf selects a page of sorted entries; fits, when set, may end the page early.
func pageOf(entries []*cachedSummary, opts ListOptions) listPage {
	var page listPage
	for _, c := range entries {
		if opts.Status != "" && c.summary.Status != opts.Status {
			continue
		}
		page.total++
		if c.summary.Name <= opts.Cursor {
			continue
		}
		if opts.Limit > 0 && len(page.entries) == opts.Limit {
			if page.next == "" {
				page.next = page.entries[len(page.entries)-1].summary.Name
			}
			continue
		}
		page.entries = append(page.entries, c)
	}
	return page
}

type listedPlan struct {
	name string
	info driver.FileInfo
}

// list returns every plan's summary sorted by name, and warnings sorted by name. Entries
// that came from the cache are shared: callers must not change them.
func (s *Store) list(ctx context.Context) ([]*cachedSummary, []Warning, error) {
	stamp, vouches := s.folderStampBefore(ctx)
	if vouches {
		if entries, strays, ok := s.unchangedListing(stamp, s.Now()); ok {
			return entries, strays, nil
		}
	}
	return s.listFolder(ctx, stamp, vouches)
}

// relist is list that lists the folder whatever its stamp says: the watch's periodic full
// scan looks for plan files rewritten in place, which leave the stamp as it was.
func (s *Store) relist(ctx context.Context) ([]*cachedSummary, []Warning, error) {
	stamp, vouches := s.folderStampBefore(ctx)
	return s.listFolder(ctx, stamp, vouches)
}

// listFolder is list from the backend's listing; stamp, taken before it, vouches for the
// result when it came wholly from the cache.
func (s *Store) listFolder(ctx context.Context, stamp string, vouches bool) ([]*cachedSummary, []Warning, error) {
	infos, err := s.Backend.LsInfo(ctx, &driver.LsInfoRequest{Path: s.Dir})
	if err != nil && !IsNotExist(err) {
		if ctx.Err() != nil {
			return nil, nil, Canceled(ctx)
		}
		return nil, nil, BackendError("list "+s.Dir, err)
	}
	listed := 0
	now := s.Now()
	// One pass under the cache lock takes every unchanged summary; only the rest is read.
	var stale []listedPlan
	hits := make([]*cachedSummary, 0, len(infos))
	s.shared.cacheMu.Lock()
	s.shared.listGen++
	gen := s.shared.listGen
	var strays []Warning
	for _, info := range infos {
		name, ok := planFileName(info)
		if !ok {
			if path.Base(info.Path) == ".stray" {
				strays = append(strays, strayWarning(s.strayDir()))
			}
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
	ordered := s.cachedInNameOrder(hits, gen)
	if len(stale) == 0 {
		s.shared.sorted = ordered
		if vouches {
			s.vouch(stamp, now, strays)
		} else {
			s.shared.stamped = nil // an older stamp must not vouch for this listing
		}
		s.shared.cacheMu.Unlock()
		return ordered, strays, nil
	}
	s.shared.stamped = nil
	s.shared.cacheMu.Unlock()
	var fresh []*cachedSummary
	warnings := strays
	for _, e := range stale {
		p, _, err := s.load(ctx, e.name)
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, Canceled(ctx)
			}
			w := Warning{Name: e.name, Code: document.CodeOf(err), Message: err.Error()}
			if errors.As(err, &w.Err) {
				w.Message = w.Err.Message
			}
			warnings = append(warnings, w)
			continue
		}
		if p == nil {
			continue // deleted between LsInfo and Read
		}
		fresh = append(fresh, s.remember(e.name, e.info, document.Summarize(p), now))
	}
	s.evictExcept(infos, listed)
	entries := mergeByName(ordered, fresh)
	s.shared.cacheMu.Lock()
	s.shared.sorted = entries // so the next listing finds the plans read here in order
	s.shared.stamped = nil    // which no stamp vouches for
	s.shared.cacheMu.Unlock()
	slices.SortFunc(warnings, func(a, b Warning) int { return strings.Compare(a.Name, b.Name) })
	return entries, warnings, nil
}

func compareCached(a, b *cachedSummary) int { return strings.Compare(a.summary.Name, b.summary.Name) }

// planFileName returns the plan name of a listed entry, or false for anything that cannot
// be named as a plan. A folder named like a plan file is listed too: reading it fails, so
// it shows as a warning that an unguarded delete clears.
func planFileName(info driver.FileInfo) (string, bool) {
	name, ok := strings.CutSuffix(path.Base(info.Path), ".md")
	if !ok || document.ValidateName(name) != nil {
		return "", false
	}
	return name, true
}

// cachedInNameOrder returns hits, the entries listing gen took from the cache, in name
// order. The last listing to finish holds them all, in that order, unless plans were
// cached since (by a listing whose result a slower one replaced): then it is filtered to
// them in one pass without comparisons (itself when it is exactly hits); otherwise hits
// are sorted. Called with cacheMu held.
func (s *Store) cachedInNameOrder(hits []*cachedSummary, gen uint64) []*cachedSummary {
	prev := s.shared.sorted
	var out []*cachedSummary // nil while prev[:i] are all hits
	for i, c := range prev {
		switch {
		case c.seen != gen || i > 0 && prev[i-1] == c: // only hits carry gen; a backend may list a path twice
			if out == nil {
				out = append(make([]*cachedSummary, 0, len(hits)), prev[:i]...)
			}
		case out != nil:
			out = append(out, c)
		}
	}
	if out == nil && len(prev) == len(hits) {
		return prev
	}
	if out != nil && len(out) == len(hits) {
		return out
	}
	slices.SortFunc(hits, compareCached)
	return hits
}

// mergeByName returns ordered, a shared listing in name order, with the entries of fresh
// in their places, in a new slice.
func mergeByName(ordered, fresh []*cachedSummary) []*cachedSummary {
	slices.SortFunc(fresh, compareCached)
	out := make([]*cachedSummary, 0, len(ordered)+len(fresh))
	i := 0
	for _, f := range fresh {
		j := i + sort.Search(len(ordered)-i, func(k int) bool { return compareCached(ordered[i+k], f) > 0 })
		out = append(append(out, ordered[i:j]...), f)
		i = j
	}
	return append(out, ordered[i:]...)
}

// remember caches a summary under the Size and ModifiedAt that LsInfo reported before the
// read, unless the file changed so recently that a same-size rewrite within the file
// system's clock granularity could go unnoticed.
// It returns the entry, cached or not.
func (s *Store) remember(name string, info driver.FileInfo, sum document.Summary, now time.Time) *cachedSummary {
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
	s.shared.cacheMu.Lock()
	s.shared.cache[name] = c
	s.shared.cacheMu.Unlock()
	return c
}

// evictExcept drops the cached summaries of plans that infos, which lists listed plan
// files, no longer has. The set of listed names is built only when the cache holds more
// entries than were listed, so an unchanged folder costs no allocation here.
func (s *Store) evictExcept(infos []driver.FileInfo, listed int) {
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

// strayWarning reports what the Store set aside from where its history goes.
func strayWarning(dir string) Warning {
	e := document.Fail(document.Error{Code: document.CodeCorrupt, Reason: document.ReasonSetAside, Path: dir})
	return Warning{Name: path.Base(dir), Code: e.Code, Message: e.Message, Err: e}
}

// cachedSummary is replaced, never changed, when its plan changes; only seen (the last
// listing that returned it) is updated, under cacheMu. An entry that was never cached (a
// file changed within the racy window) is private to one listing.
type cachedSummary struct {
	size     int64
	modified string
	summary  document.Summary
	seen     uint64
}

// stampedListing is the listing a stamp vouches for: the entries are shared.sorted.
type stampedListing struct {
	stamp  string
	at     time.Time
	strays []Warning
}
