package board

import (
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strings"
)

// ActionHeader is the header every action request must carry, with any value. A browser
// sends a custom header across sites only after a CORS preflight, which the board never
// grants, so a page on another site cannot make one.
const ActionHeader = "X-Plan-Board"

// maxActionBody bounds the JSON body of an action.
const maxActionBody = 64 << 10

// sameSite refuses a request a page of another site could have sent: it must be JSON, carry
// ActionHeader, and, when the browser says where it comes from, come from this origin
// (Sec-Fetch-Site "same-origin", Origin equal to the request's own scheme and host).
func sameSite(r *http.Request) *apiError {
	refuse := func(msg string) *apiError {
		return &apiError{status: http.StatusForbidden, Code: "cross_site", Message: msg}
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return &apiError{status: http.StatusUnsupportedMediaType, Code: "not_json", Message: "an action is a JSON request (Content-Type: application/json)"}
	}
	if r.Header.Get(ActionHeader) == "" {
		return refuse("an action needs the " + ActionHeader + " header, which only the board's own page sends")
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return refuse("the browser says this request comes from another site (" + site + ")")
	}
	if origin := r.Header.Get("Origin"); origin != "" && !sameOrigin(origin, r) {
		return refuse("the request comes from another origin")
	}
	return nil
}

// sameOrigin reports whether origin is the scheme and host r was sent to.
func sameOrigin(origin string, r *http.Request) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || u.Path != "" && u.Path != "/" {
		return false
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if fwd := r.Header.Get("X-Forwarded-Proto"); fwd == "https" || fwd == "http" {
		scheme = fwd
	}
	return strings.EqualFold(u.Scheme, scheme) && strings.EqualFold(u.Host, r.Host)
}

var errNoPerson = errors.New("no person signed in")

// person is who sends r, as WithPerson names them; an error when the board is read-only
// or the request names nobody.
func (b *board) person(r *http.Request) (string, error) {
	if b.cfg.person == nil {
		return "", errNoPerson
	}
	who, err := callPerson(b.cfg.person, r)
	if err != nil {
		return "", err
	}
	who = strings.TrimSpace(who)
	if who == "" {
		return "", errNoPerson
	}
	return who, nil
}

// callPerson calls the host's function, turning a panic into an error: a broken
// authentication hook refuses the action rather than killing the request.
func callPerson(f PersonFunc, r *http.Request) (who string, err error) {
	defer func() {
		if recover() != nil {
			who, err = "", errNoPerson
		}
	}()
	return f(r)
}

// action wraps an action handler: it refuses cross-site requests, then requests from
// nobody signed in (403 read_only on a read-only board, 401 unauthenticated otherwise),
// then passes the person and the size-capped body on.
func (b *board) action(h func(w http.ResponseWriter, r *http.Request, person string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if e := sameSite(r); e != nil {
			writeError(w, e)
			return
		}
		if b.cfg.person == nil {
			writeError(w, &apiError{status: http.StatusForbidden, Code: "read_only", Message: "this board is read-only: the server lets nobody act on it"})
			return
		}
		who, err := b.person(r)
		if err != nil {
			writeError(w, &apiError{status: http.StatusUnauthorized, Code: "unauthenticated", Message: "sign in to act on the board"})
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxActionBody)
		h(w, r, who)
	}
}
