package board

import (
	"encoding/json"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/api"
)

// People's comments on steps (api.Comment), made and resolved from the board as the person
// signed in. The Store bounds them and strips control characters; the board's JSON escapes
// what is left (<, >, & too), so a comment never reaches the page as markup.

// commentBody is what the page sends to comment: the step (0: the plan) and the text.
type commentBody struct {
	Step *int   `json:"step"`
	Text string `json:"text"`
}

// commentResult is the answer to a comment or a resolve: the comment as kept, and the plan.
type commentResult struct {
	Comment api.Comment `json:"comment"`
	actionResult
}

// comment adds the person's comment on a step of the plan (Store.Put with Update.Comment).
func (b *board) comment(w http.ResponseWriter, r *http.Request, person string) {
	var c commentBody
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil || c.Step == nil || *c.Step < 0 {
		writeError(w, badRequest(`the body must be a JSON object such as {"step": 2, "text": "..."}; step 0 is the whole plan`))
		return
	}
	if !utf8.ValidString(c.Text) || len(c.Text) > 4*api.MaxCommentBytes {
		writeError(w, badRequest("text must be UTF-8 text of at most "+strconv.Itoa(api.MaxCommentBytes)+" bytes"))
		return
	}
	ctx, name := plan.WithActor(r.Context(), person), r.PathValue("name")
	p, err := b.store.Put(ctx, plan.Update{Name: name, Comment: &api.Comment{Step: *c.Step, Text: c.Text}})
	if err != nil {
		writeError(w, storeError(err))
		return
	}
	b.answerComment(w, r, p, p.Comments[len(p.Comments)-1].ID)
}

// resolveComment closes a comment of the plan as the person (Store.Put with Update.Resolve).
func (b *board) resolveComment(w http.ResponseWriter, r *http.Request, person string) {
	ctx, name, id := plan.WithActor(r.Context(), person), r.PathValue("name"), r.PathValue("id")
	p, err := b.store.Put(ctx, plan.Update{Name: name, Resolve: []string{id}})
	if err != nil {
		writeError(w, storeError(err))
		return
	}
	b.answerComment(w, r, p, id)
}

// answerComment answers with comment id of p, as written, and the plan as it is now.
func (b *board) answerComment(w http.ResponseWriter, r *http.Request, p *plan.Plan, id string) {
	d, err := b.detailOf(r.Context(), p.Name)
	if err != nil {
		writeError(w, storeError(err))
		return
	}
	out := commentResult{actionResult: actionResult{Plan: d, Changed: true}}
	for _, c := range p.Comments {
		if c.ID == id {
			out.Comment = c
		}
	}
	writeJSON(w, http.StatusOK, out)
}
