package board

import "net/http"

// WithSignInToRead makes every read of the plans need a signed-in person, as WithPerson
// names them: the list, a plan, its steps, its diff and the event stream answer 401 (code
// sign_in_required) to a request from nobody known. The page and its script and style,
// which hold no plan, and api/me stay open so the page can say why it shows nothing.
// Without WithPerson nobody is signed in, so nothing can be read. Without this option
// anyone who reaches the board reads every plan.
func WithSignInToRead() Option { return func(c *config) { c.signInToRead = true } }

// read wraps a handler that reads plans: with WithSignInToRead, a request from nobody
// signed in is refused before anything is read.
func (b *board) read(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if b.cfg.signInToRead {
			if _, err := b.person(r); err != nil {
				writeError(w, &apiError{status: http.StatusUnauthorized, Code: "sign_in_required", Message: "sign in to see the plans"})
				return
			}
		}
		h(w, r)
	}
}
