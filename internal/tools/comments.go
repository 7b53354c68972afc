package tools

import "github.com/einoplan/plan/internal/document"

// What the model reads of people's comments: the open ones, each as the Store keeps it
// (JSON escapes its text), and what to do about them in its language.

// openComments lists p's open comments for a result, and the advice that goes with them;
// nil and "" when none is open.
func (env *ToolEnv) openComments(p *document.Plan) ([]document.Comment, string) {
	if p == nil {
		return nil, ""
	}
	open := document.OpenCommentsOf(p)
	if len(open) == 0 {
		return nil, ""
	}
	return open, env.Texts["comments.open"]
}
