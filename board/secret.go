package board

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strings"
)

// SecretParam is the query parameter that carries a board's secret in the URL a person
// opens first (WithSecret): "http://127.0.0.1:8080/?secret=...".
const SecretParam = "secret"

// MinSecretLen is the shortest secret WithSecret accepts, in bytes; NewSecret's are longer.
const MinSecretLen = 32

// NewSecret returns a fresh secret for WithSecret: 256 random bits, URL-safe base64.
func NewSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// WithSecret makes the board answer only requests that carry secret, reads included (see
// WithReadsWithoutSecret), so a board that acts for one person acts for nobody else who can
// reach its port: on a shared machine, every local user and process reaches a loopback
// port. The first request carries it in the URL (SecretParam, as NewSecret's output needs
// no escaping): the board answers with a cookie holding it (HttpOnly, SameSite=Strict, for
// the board's folder only) and a redirect to the same URL without it, so the secret leaves
// the address bar and the history. Every later request carries the cookie; a script may
// send "Authorization: Bearer SECRET" instead. Any other request is refused with 401 (code
// secret_required) before anything is read or done. A secret shorter than MinSecretLen
// refuses every request (500, code weak_secret): it must hold at least 128 random bits, as
// NewSecret's 256 do.
//
// Without WithSecret, the default for a board a host mounts, the board asks for no secret:
// whoever reaches it reads, and acts as WithPerson names them. That suits a board behind
// the host's own sign-in; a board that names one person without asking who sent the
// request (as on loopback) needs WithSecret.
func WithSecret(secret string) Option {
	return func(c *config) { c.secret, c.secretSet = secret, true }
}

// WithReadsWithoutSecret lets requests that only read (GET and HEAD: the page, the plans,
// the event stream) through without the secret of WithSecret; actions still need it. Use
// it only where every process that can reach the board may read every plan.
func WithReadsWithoutSecret() Option { return func(c *config) { c.openReads = true } }

// secretCookie is the name of the cookie that holds secret: one per secret, so boards on
// two ports of one host, which share cookies, do not overwrite each other's.
func secretCookie(secret string) string {
	sum := sha256.Sum256([]byte("plan-board-cookie\x00" + secret))
	return "plan_board_" + hex.EncodeToString(sum[:6])
}

// checkSecret lets r through (true) when the board needs no secret or r carries it. It
// otherwise answers r itself: the first visit with the secret in the URL gets the cookie
// and a redirect, anything else a refusal.
func (b *board) checkSecret(w http.ResponseWriter, r *http.Request) bool {
	if !b.cfg.secretSet {
		return true
	}
	secret := b.cfg.secret
	if len(secret) < MinSecretLen {
		writeError(w, &apiError{status: http.StatusInternalServerError, Code: "weak_secret",
			Message: "the board's secret is too short, so it answers nothing; its server must give a longer one"})
		return false
	}
	reading := r.Method == http.MethodGet || r.Method == http.MethodHead
	name := secretCookie(secret)
	if c, err := r.Cookie(name); err == nil && sameSecret(c.Value, secret) {
		return true
	}
	if auth, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && sameSecret(strings.TrimSpace(auth), secret) {
		return true
	}
	q := r.URL.Query()
	if q.Has(SecretParam) && sameSecret(q.Get(SecretParam), secret) {
		if !reading {
			return true
		}
		http.SetCookie(w, &http.Cookie{Name: name, Value: secret, Path: boardFolder(r),
			HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
		q.Del(SecretParam)
		to := "/" + strings.TrimLeft(pathOf(r), "/") // never "//host": a redirect stays on this board
		if len(q) > 0 {
			to += "?" + q.Encode()
		}
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Referrer-Policy", "no-referrer")
		http.Redirect(w, r, to, http.StatusSeeOther)
		return false
	}
	if reading && b.cfg.openReads {
		return true
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="plan board"`)
	writeError(w, &apiError{status: http.StatusUnauthorized, Code: "secret_required",
		Message: "this board answers only requests that carry its secret: open the URL its server printed"})
	return false
}

// sameSecret compares in constant time, so timing tells nothing of the secret.
func sameSecret(got, secret string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(secret)) == 1
}

// boardFolder is the path the board is mounted at, with a trailing slash: the request's
// path without the part the board itself routes on ("/board/" for "/board/api/plans"
// under http.StripPrefix("/board")), or "/" where that cannot be told.
func boardFolder(r *http.Request) string {
	p := pathOf(r)
	if !strings.HasPrefix(p, "/") || !strings.HasSuffix(p, r.URL.Path) {
		return "/"
	}
	return strings.TrimRight(p[:len(p)-len(r.URL.Path)], "/") + "/"
}
