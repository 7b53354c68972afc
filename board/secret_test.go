package board_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/einoplan/plan/board"
	"github.com/einoplan/plan/board/internal/boardrig"
)

const secretBody = "# Release\n\n- [ ] Build\n- [ ] Deploy (uses deploy_prod)\n"

func newSecret(t *testing.T) string {
	t.Helper()
	s, err := board.NewSecret()
	mustNot(t, err)
	if len(s) < board.MinSecretLen {
		t.Fatalf("NewSecret gave %d bytes, under MinSecretLen", len(s))
	}
	return s
}

// noRedirects is a client that shows each answer as it is, with a cookie jar.
func noRedirects(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	mustNot(t, err)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// send sends method to url with client, as the board's page sends an action when body is
// not "", and returns the status and body.
func send(t *testing.T, client *http.Client, method, url, body string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	mustNot(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(board.ActionHeader, "1")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	mustNot(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	mustNot(t, err)
	return resp.StatusCode, string(data)
}

// A board that names its person without asking who sent the request (as on loopback)
// answers nobody without its secret: not the page, not the plans, not the stream, not an
// action, even one that looks like the page's own.
func TestABoardWithASecretAnswersNothingWithoutIt(t *testing.T) {
	secret := newSecret(t)
	r := newRig(t, asPerson("alice"), board.WithSecret(secret))
	r.Put("release", secretBody)
	client := noRedirects(t)
	for _, path := range []string{"/", "/static/board.js", "/api/me", "/api/plans", "/api/plans/release",
		"/api/plans/release/steps", "/api/plans/release/diff", "/api/events", "/nowhere"} {
		st, body := send(t, client, http.MethodGet, r.Srv.URL+path, "", nil)
		if st != http.StatusUnauthorized || !strings.Contains(body, `"secret_required"`) {
			t.Errorf("GET %s without the secret: %d %s", path, st, body)
		}
		if strings.Contains(body, "Release") {
			t.Errorf("GET %s without the secret shows the plan: %s", path, body)
		}
	}
	for _, tc := range []struct{ path, body string }{
		{"/api/plans/release/approve", `{"revision":1}`},
		{"/api/plans/release/reject", `{"revision":1,"feedback":"no"}`},
		{"/api/plans/release/steps/2/holder", `{"revision":1,"holder":"mallory-agent"}`},
	} {
		st, body := send(t, client, http.MethodPost, r.Srv.URL+tc.path, tc.body, map[string]string{"Origin": r.Srv.URL})
		if st != http.StatusUnauthorized {
			t.Errorf("POST %s without the secret: %d %s", tc.path, st, body)
		}
	}
	for _, wrong := range []map[string]string{
		{"Authorization": "Bearer " + secret[:len(secret)-1] + "x"},
		{"Cookie": "plan_board=" + secret},
		{"Authorization": secret},
	} {
		if st, body := send(t, client, http.MethodGet, r.Srv.URL+"/api/plans", "", wrong); st != http.StatusUnauthorized {
			t.Errorf("GET with %v: %d %s", wrong, st, body)
		}
	}
	if st, _ := send(t, client, http.MethodGet, r.Srv.URL+"/?"+board.SecretParam+"=wrong", "", nil); st != http.StatusUnauthorized {
		t.Errorf("a wrong secret in the URL: %d", st)
	}
	p, err := r.Store.Get(context.Background(), "release")
	mustNot(t, err)
	if p.Revision != 1 || p.Approval != nil || p.Rejection != nil {
		t.Fatalf("the plan changed: revision %d, approval %+v, rejection %+v", p.Revision, p.Approval, p.Rejection)
	}
}

// The URL with the secret sets an HttpOnly, SameSite=Strict cookie and sends the browser to
// the same URL without the secret; with the cookie, the person reads and acts.
func TestTheSecretURLGivesACookieThatReadsAndActs(t *testing.T) {
	secret := newSecret(t)
	r := newRig(t, asPerson("alice"), board.WithSecret(secret))
	r.Put("release", secretBody)
	client := noRedirects(t)

	req, err := http.NewRequest(http.MethodGet, r.Srv.URL+"/?lang=en&"+board.SecretParam+"="+secret, nil)
	mustNot(t, err)
	resp, err := client.Do(req)
	mustNot(t, err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/?lang=en" {
		t.Fatalf("the secret URL answered %d to %q, want 303 to /?lang=en", resp.StatusCode, resp.Header.Get("Location"))
	}
	cookies := resp.Cookies()
	if len(cookies) != 1 {
		t.Fatalf("cookies %v", resp.Header.Values("Set-Cookie"))
	}
	c := cookies[0]
	if c.Value != secret || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" {
		t.Fatalf("cookie %q: want the secret, HttpOnly, SameSite=Strict, Path=/", resp.Header.Get("Set-Cookie"))
	}
	if resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("the answer that carries the secret may be cached: %q", resp.Header.Get("Cache-Control"))
	}

	for _, path := range []string{"/", "/static/board.js", "/api/plans/release"} {
		if st, body := send(t, client, http.MethodGet, r.Srv.URL+path, "", nil); st != http.StatusOK {
			t.Errorf("GET %s with the cookie: %d %.200s", path, st, body)
		}
	}
	st, body := send(t, client, http.MethodPost, r.Srv.URL+"/api/plans/release/approve", `{"revision":1}`,
		map[string]string{"Origin": r.Srv.URL, "Sec-Fetch-Site": "same-origin"})
	if st != http.StatusOK {
		t.Fatalf("approving with the cookie: %d %s", st, body)
	}
	p, err := r.Store.Get(context.Background(), "release")
	mustNot(t, err)
	if p.Approval == nil || p.Approval.By != "alice" {
		t.Fatalf("approval %+v", p.Approval)
	}

	// A script sends the secret as a bearer token instead.
	st, _ = send(t, http.DefaultClient, http.MethodGet, r.Srv.URL+"/api/plans", "", map[string]string{"Authorization": "Bearer " + secret})
	if st != http.StatusOK {
		t.Errorf("GET with the bearer secret: %d", st)
	}
}

// A mounted board keeps its cookie to its own folder, and its redirect stays on it.
func TestAMountedBoardKeepsItsSecretCookieToItsFolder(t *testing.T) {
	secret := newSecret(t)
	store, _ := boardrig.Serve(t)
	mux := http.NewServeMux()
	mux.Handle("/board/", http.StripPrefix("/board", board.New(store, board.WithSecret(secret))))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	client := noRedirects(t)
	resp, err := client.Get(srv.URL + "/board/?" + board.SecretParam + "=" + secret)
	mustNot(t, err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/board/" {
		t.Fatalf("answered %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if c := resp.Cookies(); len(c) != 1 || c[0].Path != "/board/" {
		t.Fatalf("cookie %v", resp.Header.Values("Set-Cookie"))
	}
	if st, _ := send(t, client, http.MethodGet, srv.URL+"/board/api/plans", "", nil); st != http.StatusOK {
		t.Errorf("the mounted board with its cookie: %d", st)
	}

	// A path that starts with two slashes is never sent elsewhere.
	resp, err = client.Get(srv.URL + "//evil.test/?" + board.SecretParam + "=" + secret)
	mustNot(t, err)
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); strings.HasPrefix(loc, "//") {
		t.Errorf("redirected off the board, to %q", loc)
	}
}

// A host that lets every process that reaches the board read opts out for reads only.
func TestReadsWithoutSecretStillNeedItToAct(t *testing.T) {
	secret := newSecret(t)
	r := newRig(t, asPerson("alice"), board.WithSecret(secret), board.WithReadsWithoutSecret())
	r.Put("release", secretBody)
	client := noRedirects(t)
	if st, _ := send(t, client, http.MethodGet, r.Srv.URL+"/api/plans/release", "", nil); st != http.StatusOK {
		t.Errorf("a read: %d", st)
	}
	st, body := send(t, client, http.MethodPost, r.Srv.URL+"/api/plans/release/approve", `{"revision":1}`, map[string]string{"Origin": r.Srv.URL})
	if st != http.StatusUnauthorized || !strings.Contains(body, "secret_required") {
		t.Errorf("an action without the secret: %d %s", st, body)
	}
}

// A secret too short to be secret makes the board answer nothing rather than everyone.
func TestAShortSecretRefusesEveryRequest(t *testing.T) {
	r := newRig(t, asPerson("alice"), board.WithSecret("hunter2"))
	client := noRedirects(t)
	for _, url := range []string{r.Srv.URL + "/api/plans", r.Srv.URL + "/?" + board.SecretParam + "=hunter2"} {
		st, body := send(t, client, http.MethodGet, url, "", map[string]string{"Authorization": "Bearer hunter2"})
		if st != http.StatusInternalServerError || !strings.Contains(body, "weak_secret") {
			t.Errorf("GET %s: %d %s", url, st, body)
		}
	}
}
