package plan

import (
	"context"
	"fmt"
	"strings"
)

// digest renders the current plans for the instruction: one line each (name, title,
// status, progress, current step), at most Digest.MaxPlans lines and Digest.MaxBytes
// bytes, most recently updated first. It is empty when disabled, when there are no plans,
// or when the plans cannot be listed: a digest must never stop a run.
func (m *middleware[M]) digest(ctx context.Context) string {
	if m.cfg.Digest.Disabled {
		return ""
	}
	listing, err := m.store.List(ctx)
	if err != nil || len(listing.Plans)+len(listing.Warnings) == 0 {
		return ""
	}
	return renderDigest(listing, m.texts, m.cfg.Digest.MaxPlans, m.cfg.Digest.MaxBytes)
}

func renderDigest(listing *Listing, texts map[string]string, maxPlans, maxBytes int) string {
	var b strings.Builder
	b.WriteString(texts["digest.header"])
	budget := maxBytes - b.Len()
	shown := 0
	for _, p := range newestFirst(listing.Plans, maxPlans) {
		line := digestLine(*p, texts)
		if len(line) > budget {
			break
		}
		b.WriteString(line)
		budget -= len(line)
		shown++
	}
	tail := ""
	if rest := len(listing.Plans) - shown; rest > 0 {
		tail = fmt.Sprintf("- +%d %s\n", rest, texts["digest.more"])
	}
	if len(listing.Warnings) > 0 {
		tail += fmt.Sprintf("- %d %s\n", len(listing.Warnings), texts["digest.unreadable"])
	}
	if len(tail) <= budget {
		b.WriteString(tail)
	}
	if shown == 0 && tail == "" {
		return ""
	}
	return b.String()
}

// newestFirst returns at most k of plans, most recently updated first, plans updated at the
// same time in their listing order: the first k of a stable sort by UpdatedAt, descending,
// found in one pass without copying or sorting the whole listing.
func newestFirst(plans []Summary, k int) []*Summary {
	if k <= 0 {
		return nil
	}
	top := make([]*Summary, 0, min(k, len(plans))+1)
	for i := range plans {
		p := &plans[i]
		j := len(top)
		for j > 0 && p.UpdatedAt.After(top[j-1].UpdatedAt) {
			j--
		}
		if j >= k {
			continue
		}
		top = append(top, nil)
		copy(top[j+1:], top[j:])
		top[j] = p
		if len(top) > k {
			top = top[:k]
		}
	}
	return top
}

func digestLine(p Summary, texts map[string]string) string {
	title := truncateUTF8(oneLine(p.Title), 80)
	status := truncateUTF8(oneLine(p.Status), 40)
	line := fmt.Sprintf("- %s r%d \"%s\" [%s]", p.Name, p.Revision, title, status)
	if p.Progress.Total > 0 {
		line += fmt.Sprintf(" %d/%d", p.Progress.Completed+p.Progress.Skipped, p.Progress.Total)
		if p.CurrentStep != nil {
			line += fmt.Sprintf(", %s #%d: %s", texts["digest.next"], p.CurrentStep.Number, truncateUTF8(oneLine(p.CurrentStep.Text), 80))
		}
	}
	return line + "\n"
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
