package plan

import (
	"context"
	"testing"
)

// An approval that edits the plan refuses a body whose prerequisites name a missing step or
// make a cycle, and writes nothing.
func TestAnEditedApprovalIsCheckedForItsPrerequisites(t *testing.T) {
	s, err := NewStore(&StoreConfig{Backend: NewMemoryBackend()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	body := "- [ ] a\n- [ ] b (after 1)\n"
	if _, err := s.Put(ctx, Update{Name: "p", Content: &body}); err != nil {
		t.Fatal(err)
	}
	for _, edited := range []string{"- [ ] a (after 2)\n- [ ] b (after 1)\n", "- [ ] a\n- [ ] b (after 3)\n"} {
		_, err := s.e.ApproveContent(ctx, "p", 1, edited, "ana")
		if CodeOf(err) != CodeInvalidArgument {
			t.Fatalf("approval of %q: %v, want invalid_argument", edited, err)
		}
	}
	p, err := s.Get(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if p.Revision != 1 || p.Content != body || p.Approval != nil {
		t.Fatalf("revision %d, approved %v, content %q: something was written", p.Revision, p.Approval, p.Content)
	}
}
