package agentrun

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/tools"
)

// digest renders the current plans for the instruction: one line each (name, title,
// status, progress, current step), at most Digest.MaxPlans lines and Digest.MaxBytes
// bytes, most recently updated first. It is empty when disabled, when there are no plans,
// or when the plans cannot be listed: a digest must never stop a run.
func (m *Middleware[M, S]) digest(ctx context.Context, texts map[string]string) string {
	d, _ := m.digestOrErr(ctx, texts)
	return d
}

// digestOrErr is digest that tells a failed listing from an empty one.
func (m *Middleware[M, S]) digestOrErr(ctx context.Context, texts map[string]string) (string, error) {
	if m.cfg.Digest.Disabled {
		return "", nil
	}
	plans, unreadable, err := m.Store.Summaries(ctx)
	if err != nil {
		return "", err
	}
	if len(plans)+unreadable == 0 {
		return "", nil
	}
	text, lines, ok := m.digests.reuse(plans, unreadable, texts)
	if ok {
		return text, nil
	}
	text, lines = renderDigest(plans, unreadable, withSetHeader(texts, m.cfg.PlanSet), m.cfg.Digest.MaxPlans, m.cfg.Digest.MaxBytes, lines)
	m.digests.keep(plans, unreadable, texts, text, lines)
	return text, nil
}

// renderDigest renders the listed plans (shared with the Store's cache: read only) and the
// number of plans that could not be read. It takes each line from known when there, and
// returns the lines it showed.
func renderDigest(plans []*document.Summary, unreadable int, texts map[string]string, maxPlans, maxBytes int, known digestLines) (string, digestLines) {
	top := newestFirst(plans, max(maxPlans, 1))
	var latest time.Time // when the newest plan changed: the moment the digest describes
	if len(top) > 0 && top[0].UpdatedAt.After(latest) {
		latest = top[0].UpdatedAt
	}
	var b strings.Builder
	b.WriteString(strings.ReplaceAll(texts["digest.header"], "{time}", latest.UTC().Format(time.RFC3339)))
	budget := maxBytes - b.Len()
	// The lines that say where the rest is must fit after the plans.
	reserve := len(texts["digest.more"]) + len(texts["digest.unreadable"]) + 32
	shown := 0
	lines := make(digestLines, len(top))
	for _, p := range top[:min(len(top), max(maxPlans, 0))] {
		line, ok := known[p]
		if !ok {
			line = digestLine(*p, texts)
		}
		if len(line)+reserve > budget {
			break
		}
		lines[p] = line
		b.WriteString(line)
		budget -= len(line)
		shown++
	}
	tail := ""
	if rest := len(plans) - shown; rest > 0 {
		tail = fmt.Sprintf("- +%d %s\n", rest, texts["digest.more"])
	}
	if unreadable > 0 {
		tail += fmt.Sprintf("- %d %s\n", unreadable, texts["digest.unreadable"])
	}
	if len(tail) <= budget {
		b.WriteString(tail)
		budget -= len(tail)
	}
	if teach := proofLesson(top[:shown], texts); teach != "" && len(teach) <= budget {
		b.WriteString(teach)
	}
	if shown == 0 && tail == "" {
		return "", lines
	}
	return b.String(), lines
}

// proofLesson teaches "(proof …)" in one line, only when a step shown as current or next
// ends with it: a plan that does not use it costs its agents no byte.
func proofLesson(shown []*document.Summary, texts map[string]string) string {
	for _, p := range shown {
		for _, s := range []*document.Step{p.CurrentStep, p.NextStep} {
			if s != nil && len(s.Proof) > 0 && texts["digest.proof"] != "" {
				return "- " + texts["digest.proof"] + "\n"
			}
		}
	}
	return ""
}

// newestFirst returns at most k of plans, most recently updated first, plans updated at the
// same time in their listing order: the first k of a stable sort by UpdatedAt, descending,
// found in one pass without copying or sorting the whole listing. The pass runs from the
// end of the listing, so in a listing in the order the plans were created (each newer than
// the last) the first k seen are the newest and every other plan is passed over after one
// comparison; a plan that is kept finds its place among the k by binary search.
func newestFirst(plans []*document.Summary, k int) []*document.Summary {
	if k <= 0 {
		return nil
	}
	top := make([]*document.Summary, 0, min(k, len(plans))+1)
	for i := len(plans) - 1; i >= 0; i-- {
		p := plans[i]
		if len(top) == k && top[k-1].UpdatedAt.After(p.UpdatedAt) {
			continue
		}
		// Seen after the kept plans, p comes before each one that is not newer than it.
		j := sort.Search(len(top), func(i int) bool { return !top[i].UpdatedAt.After(p.UpdatedAt) })
		top = append(top, nil)
		copy(top[j+1:], top[j:])
		top[j] = p
		if len(top) > k {
			top = top[:k]
		}
	}
	return top
}

// digestLine is one plan's line. Every text a person or a model wrote (title, status, step)
// is quoted by quoteInline, so none can end the line (with a line break of any kind), close
// its quotes or pass for another field: only the name (a-z, 0-9, '-', '_'), numbers and the
// digest's own words stand outside.
func digestLine(p document.Summary, texts map[string]string) string {
	line := fmt.Sprintf("- %s r%d %s=%s %s=%s", p.Name, p.Revision,
		texts["digest.title"], tools.QuoteInline(p.Title, 80), texts["digest.status"], tools.QuoteInline(p.Status, 40))
	if p.Progress.Total > 0 {
		line += fmt.Sprintf(" %s=%d/%d", texts["digest.done"], p.Progress.Completed+p.Progress.Skipped, p.Progress.Total)
		if next := tools.NextPending(p); next != nil {
			line += fmt.Sprintf(" %s=#%d %s", texts["digest.next"], next.Number, tools.QuoteInline(next.Text, 80))
		}
	}
	if p.Approval != nil {
		line += fmt.Sprintf(" %s=r%d", texts["digest.approved"], p.Approval.Revision)
	}
	return line + "\n"
}

// withSetHeader returns texts whose digest header names the plan set, if any.
func withSetHeader(texts map[string]string, set string) map[string]string {
	if strings.TrimSpace(set) == "" {
		return texts
	}
	return map[string]string{"digest.header": digestHeader(texts, set), "digest.more": texts["digest.more"],
		"digest.unreadable": texts["digest.unreadable"], "digest.title": texts["digest.title"],
		"digest.status": texts["digest.status"], "digest.done": texts["digest.done"],
		"digest.next": texts["digest.next"], "digest.approved": texts["digest.approved"],
		"digest.proof": texts["digest.proof"]}
}

// digestHeader is the digest's header line for the plan set set ("" for none).
func digestHeader(texts map[string]string, set string) string {
	if strings.TrimSpace(set) == "" {
		return texts["digest.header"]
	}
	return tools.WithPlanSet(texts["digest.header"], texts, set)
}

// The digest a model reads is true at every model call, whatever the order of the agent's
// handlers: the run's instruction carries the digest of the run's start, and while the
// history keeps every tool result since, the model reads the plans' changes there. When
// the history was rewritten (a summarization handler, before or after this one, compacted
// it), those results are gone, so the model call that first sees the rewritten history
// reads a fresh digest instead, and every later call of the run reads that one, unchanged
// (so prompt caching keeps working) until the next rewrite. The renewal happens in
// WrapModel, which sees the messages exactly as the model gets them, after every handler's
// BeforeModelRewriteState; the run's stored history keeps the instruction as it started.
//
// A run resumed from a checkpoint (after request_plan_approval, say) keeps in its history
// the system message of the run it resumes, with that run's digest. So the first model call
// of every run finds the digest the history holds, which every renewal replaces; when it is
// not the run's own, that call reads a fresh digest, as after a rewrite: the tool call the
// run resumed may have changed the plans since BeforeAgent, and the history may already be
// compacted.

// WrapModel renews the digest at the model call (see above).
func (m *Middleware[M, S]) WrapModel(_ context.Context, inner model.BaseModel[M], _ *adk.TypedModelContext[M]) (model.BaseModel[M], error) {
	renew := m.renewDigest
	if m.cfg.Digest.Disabled {
		renew = func(_ context.Context, input []M) []M { return input }
	}
	// Reminders of others' changes follow the input, after the digest (reminders.go).
	return m.metered(&digestModel[M, S]{inner: inner, renew: func(ctx context.Context, input []M) []M { return m.remind(ctx, renew(ctx, input)) }}), nil
}

// digestModel is a model whose input gets the run's current digest.
type digestModel[M adk.MessageType, S any] struct {
	inner model.BaseModel[M]
	renew func(ctx context.Context, input []M) []M
}

func (d *digestModel[M, S]) Generate(ctx context.Context, input []M, opts ...model.Option) (M, error) {
	return d.inner.Generate(ctx, d.renew(ctx, input), opts...)
}

func (d *digestModel[M, S]) Stream(ctx context.Context, input []M, opts ...model.Option) (*schema.StreamReader[M], error) {
	return d.inner.Stream(ctx, d.renew(ctx, input), opts...)
}

// renewDigest returns input with the digest the model is to read in the system messages. It
// takes a fresh digest when the history was rewritten since the previous model call or
// holds another run's digest, and otherwise shows the one shown last. A listing that fails
// keeps the digest shown.
func (m *Middleware[M, S]) renewDigest(ctx context.Context, input []M) []M {
	st, _ := ctx.Value(m.stateKey).(*runState)
	if st == nil {
		return input
	}
	shown := &st.digest
	shown.mu.Lock()
	defer shown.mu.Unlock()
	var stale bool
	if shown.count == 0 {
		// A history holding another digest than the run's is a resumed run's (see above).
		shown.inHistory = digestInHistory(input, shown.anchor, shown.text, digestHeader(st.set.texts, m.cfg.PlanSet))
		stale = shown.inHistory != shown.text
	} else {
		// Every model call adds its answer to the history, so a history that did not grow, or
		// whose message at the place of the last one seen differs from it, was rewritten. (A
		// retry of the same call reads as one too, and only renews the digest early.) A
		// message is the same when it is the same value, or a copy with the same content.
		stale = len(input) <= shown.count || !shown.sameAsLast(input[shown.count-1])
	}
	shown.count = len(input)
	if shown.count > 0 {
		shown.last, shown.lastKey = any(input[shown.count-1]), ""
	}
	if stale {
		if fresh, err := m.digestOrErr(ctx, st.set.texts); err == nil {
			shown.text = fresh
		}
	}
	if shown.text == shown.inHistory {
		return input
	}
	out := slices.Clone(input)
	for i, msg := range out {
		if renewed, ok := replaceInSystem(msg, shown.anchor+shown.inHistory, shown.anchor+shown.text); ok {
			out[i] = renewed
			return out
		}
	}
	return input
}

// digestInHistory is the digest that follows anchor in the first system message of input
// holding it: rendered when that is the run's own, else the digest found there ("" when
// none follows the anchor). Without the anchor there is nothing to renew: rendered then.
func digestInHistory[M adk.MessageType](input []M, anchor, rendered, header string) string {
	for _, msg := range input {
		for _, text := range systemTexts(msg) {
			_, after, ok := strings.Cut(text, anchor)
			if !ok {
				continue
			}
			if rendered != "" && strings.HasPrefix(after, rendered) && !digestLineStart.MatchString(after[len(rendered):]) {
				return rendered // not merely the start of a longer digest (a plan since deleted)
			}
			return leadingDigest(after, header)
		}
	}
	return rendered
}

// digestLineStart begins every line of a digest after its header: a plan's ("- name r3 "),
// or the count of plans it leaves out or could not read ("- +4 ", "- 1 ").
var digestLineStart = regexp.MustCompile(`^- (?:[a-z0-9][a-z0-9_-]* r[0-9]+ |\+?[0-9]+ )`)

// leadingDigest is the digest s starts with, rendered with header at whatever time: the
// header line, then its lines, each ending in a line break (every text in one is a JSON
// string, so none holds a break). It is "" when s starts with no digest.
func leadingDigest(s, header string) string {
	before, after, _ := strings.Cut(header, "{time}")
	if !strings.HasPrefix(s, before) {
		return ""
	}
	at := strings.Index(s[len(before):], after)
	if at < 0 || strings.Contains(s[len(before):len(before)+at], "\n") {
		return ""
	}
	end := len(before) + at + len(after)
	for digestLineStart.MatchString(s[end:]) {
		br := strings.IndexByte(s[end:], '\n')
		if br < 0 {
			break
		}
		end += br + 1
	}
	return s[:end]
}

// systemTexts are the texts of msg when it is a system message.
func systemTexts[M adk.MessageType](msg M) []string {
	switch m := any(msg).(type) {
	case *schema.Message:
		if m != nil && m.Role == schema.System {
			return []string{m.Content}
		}
	case *schema.AgenticMessage:
		if m == nil || m.Role != schema.AgenticRoleTypeSystem {
			break
		}
		var texts []string
		for _, block := range m.ContentBlocks {
			if block != nil && block.UserInputText != nil {
				texts = append(texts, block.UserInputText.Text)
			}
		}
		return texts
	}
	return nil
}

// replaceInSystem returns a copy of msg, a system message holding old, with old replaced.
func replaceInSystem[M adk.MessageType](msg M, old, fresh string) (M, bool) {
	switch m := any(msg).(type) {
	case *schema.Message:
		if m != nil && m.Role == schema.System && strings.Contains(m.Content, old) {
			c := *m
			c.Content = strings.Replace(m.Content, old, fresh, 1)
			return any(&c).(M), true
		}
	case *schema.AgenticMessage:
		if m == nil || m.Role != schema.AgenticRoleTypeSystem {
			break
		}
		for i, block := range m.ContentBlocks {
			if block != nil && block.UserInputText != nil && strings.Contains(block.UserInputText.Text, old) {
				c := *m
				c.ContentBlocks = slices.Clone(m.ContentBlocks)
				b := *block
				text := *block.UserInputText
				text.Text = strings.Replace(text.Text, old, fresh, 1)
				b.UserInputText = &text
				c.ContentBlocks[i] = &b
				return any(&c).(M), true
			}
		}
	}
	return msg, false
}
