package document

import (
	"sort"
	"strconv"
	"strings"
	"time"
)

// A hold is leased: the Store records, in the plan file's header, when each held step was
// last moved by its holder ("holds: \"3@2026-11-23T22:00:00Z,5@…\""), so every process and
// machine sharing the storage judges it alike, whatever the backend. With a HoldTTL, a hold
// not renewed within it has expired: the next free step is that step before any pending
// one, and anyone may move it without a takeover. The revision that moves a step whose hold
// expired records whose it was ("hold_expired: \"3 w1\""), for History and Change.Expired.

// hdrHolds and hdrHoldExpired are the header keys of a plan's hold times and of the hold
// that expired at its revision.
const (
	hdrHolds       = "holds"
	hdrHoldExpired = "hold_expired"
)

// formatHolds writes hold times as "3@<RFC 3339 UTC>,5@…", by step number.
func formatHolds(holds map[int]time.Time) string {
	nums := make([]int, 0, len(holds))
	for n := range holds {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	parts := make([]string, len(nums))
	for i, n := range nums {
		parts[i] = strconv.Itoa(n) + "@" + holds[n].UTC().Format(time.RFC3339Nano)
	}
	return strings.Join(parts, ",")
}

// parseHolds reads formatHolds' text; an entry it cannot read is left out (that step's
// hold then counts from the plan's UpdatedAt).
func parseHolds(s string) map[int]time.Time {
	var holds map[int]time.Time
	for _, part := range strings.Split(s, ",") {
		num, at, ok := strings.Cut(part, "@")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(num)
		t, terr := time.Parse(time.RFC3339Nano, at)
		if err != nil || terr != nil || n < 1 {
			continue
		}
		if holds == nil {
			holds = map[int]time.Time{}
		}
		holds[n] = t.UTC()
	}
	return holds
}

// SettleHolds gives next, about to be written at next.UpdatedAt, the hold time of each step
// it has held: the time next carries when cur had that same step held by the same agent
// (the hold goes on, or its holder just renewed it), else now (a new hold, a takeover, or a
// rewrite that moved the step). Steps nobody holds have none. It also clears an expired
// hold next carries over unchanged from cur: that one belongs to cur's revision.
func SettleHolds(cur, next *Plan) {
	if cur != nil && next.ExpiredHold == cur.ExpiredHold {
		next.ExpiredHold = ""
	}
	if !strings.Contains(next.Content, "(@") {
		next.Holds = ""
		return
	}
	had := parseHolds(next.Holds)
	var was []Step
	if cur != nil && len(had) > 0 {
		was = StepsOf(cur.Content)
	}
	var holds map[int]time.Time
	for _, s := range StepsOf(next.Content) {
		if s.Holder == "" {
			continue
		}
		if holds == nil {
			holds = map[int]time.Time{}
		}
		t, ok := had[s.Number]
		if ok && s.Number <= len(was) && was[s.Number-1].Holder == s.Holder && was[s.Number-1].WithoutHolder() == s.WithoutHolder() {
			holds[s.Number] = t
		} else {
			holds[s.Number] = next.UpdatedAt
		}
	}
	next.Holds = formatHolds(holds)
}

// LeaseEnd is when the hold on step st of p runs out unless renewed, under a lease of ttl;
// zero without a lease (ttl 0) or a holder.
func LeaseEnd(p *Plan, st Step, ttl time.Duration) time.Time {
	if ttl <= 0 || st.State != StepInProgress || st.Holder == "" {
		return time.Time{}
	}
	return HeldSince(p, st).Add(ttl).UTC()
}

// HeldSince is when step s of p was last moved by its holder: the recorded time, else the
// plan's UpdatedAt (a file written without one, e.g. by hand).
func HeldSince(p *Plan, s Step) time.Time {
	if t, ok := parseHolds(p.Holds)[s.Number]; ok {
		return t
	}
	return p.UpdatedAt
}

// HoldExpired reports whether step s of p is held by an agent that has not renewed its hold
// within ttl at now; never with a ttl of 0.
func HoldExpired(p *Plan, s Step, ttl time.Duration, now time.Time) bool {
	return ttl > 0 && s.State == StepInProgress && s.Holder != "" && now.Sub(HeldSince(p, s)) > ttl
}

// ExpiredStep is the first step of p whose hold has expired and that waits for nothing
// unfinished: what a move without a step number takes before any pending step.
func ExpiredStep(p *Plan, steps []Step, ttl time.Duration, now time.Time) (Step, bool) {
	if ttl <= 0 {
		return Step{}, false
	}
	for _, s := range steps {
		if HoldExpired(p, s, ttl, now) && WaitsOf(steps, s) == nil {
			return s, true
		}
	}
	return Step{}, false
}

// WithHold is holds (as the header stores them) with step n held since t.
func WithHold(holds string, n int, t time.Time) string {
	out := parseHolds(holds)
	if out == nil {
		out = map[int]time.Time{}
	}
	out[n] = t
	return formatHolds(out)
}

// ExpiredHolder is the agent named by a hold_expired header value "3 w1"; "" for none.
func ExpiredHolder(v string) string {
	_, who, _ := strings.Cut(v, " ")
	return who
}
