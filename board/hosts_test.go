package board_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/einoplan/plan/board"
)

// sendAs sends a request to the rig's server with the Host header set to host, as a
// browser does for a page on that host name once its name resolves to this server.
func (r *rig) sendAs(host, method, path, body string) (int, string) {
	r.T.Helper()
	req, err := http.NewRequest(method, r.Srv.URL+path, strings.NewReader(body))
	mustNot(r.T, err)
	req.Host = host
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(board.ActionHeader, "1")
		req.Header.Set("Origin", "http://"+host)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
	}
	var e errorBody
	st := r.postDo(req, &e)
	return st, e.Error.Code
}

func (r *rig) postDo(req *http.Request, out any) int {
	r.T.Helper()
	resp, err := http.DefaultClient.Do(req)
	mustNot(r.T, err)
	return decode(r.T, resp, out)
}

func TestARequestForAReboundHostNameIsRefusedBeforeAnythingIsDone(t *testing.T) {
	r := newRig(t, asPerson("alice"))
	r.Put("release", releasePlan)
	port := strings.TrimPrefix(r.Srv.URL, "http://127.0.0.1:")
	for _, host := range []string{"rebound.test:" + port, "rebound.test", "attacker.example:" + port, "LOCALHOST.evil.test:" + port} {
		if st, code := r.sendAs(host, http.MethodPost, "/api/plans/release/approve", `{"revision":1}`); st != http.StatusMisdirectedRequest || code != "wrong_host" {
			t.Errorf("approve for %s: %d %s", host, st, code)
		}
		for _, path := range []string{"/", "/api/plans", "/api/plans/release", "/api/me", "/api/events", "/static/board.js"} {
			if st, code := r.sendAs(host, http.MethodGet, path, ""); st != http.StatusMisdirectedRequest || code != "wrong_host" {
				t.Errorf("GET %s for %s: %d %s", path, host, st, code)
			}
		}
	}
	p, err := r.Store.Get(context.Background(), "release")
	mustNot(t, err)
	if p.Approval != nil || p.Revision != 1 {
		t.Fatalf("a request for a foreign host changed the plan: %+v", p)
	}
	// The loopback names still work, on any port.
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "LocalHost:" + port, "[::1]:" + port} {
		if st, code := r.sendAs(host, http.MethodGet, "/api/plans/release", ""); st != http.StatusOK {
			t.Errorf("GET for %s: %d %s", host, st, code)
		}
	}
	if st, code := r.sendAs("localhost:"+port, http.MethodPost, "/api/plans/release/approve", `{"revision":1}`); st != http.StatusOK {
		t.Fatalf("approve for localhost: %d %s", st, code)
	}
}

func TestWithHostsAnswersOnlyTheNamedHosts(t *testing.T) {
	r := newRig(t, asPerson("alice"), board.WithHosts("board.example.com", "127.0.0.1:1", " ", "[::1]:9"))
	r.Put("release", releasePlan)
	port := strings.TrimPrefix(r.Srv.URL, "http://127.0.0.1:")
	for host, want := range map[string]int{
		"board.example.com":         http.StatusOK,
		"Board.Example.COM:" + port: http.StatusOK,
		"127.0.0.1:1":               http.StatusOK,
		"127.0.0.1:" + port:         http.StatusMisdirectedRequest, // another port than named
		"localhost:" + port:         http.StatusMisdirectedRequest, // loopback is not implied
		"[::1]:9":                   http.StatusOK,
		"[::1]:10":                  http.StatusMisdirectedRequest,
		"example.com":               http.StatusMisdirectedRequest,
		"board.example.com.evil":    http.StatusMisdirectedRequest,
	} {
		if st, _ := r.sendAs(host, http.MethodGet, "/api/plans/release", ""); st != want {
			t.Errorf("Host %q: %d, want %d", host, st, want)
		}
	}
	none := httptest.NewServer(board.New(r.Store, board.WithHosts()))
	defer none.Close()
	if st := statusOf(t, none.URL+"/api/plans"); st != http.StatusMisdirectedRequest {
		t.Fatalf("WithHosts() with no name: %d", st)
	}
}

func TestByDefaultTheBoardAnswersForTheAddressItWasReachedAt(t *testing.T) {
	r := newRig(t)
	r.Put("release", releasePlan)
	req := httptest.NewRequest(http.MethodGet, "http://10.1.2.3:8080/api/plans/release", nil)
	local, err := net.ResolveTCPAddr("tcp", "10.1.2.3:8080")
	mustNot(t, err)
	rec := httptest.NewRecorder()
	r.Srv.Config.Handler.ServeHTTP(rec, req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, local)))
	if rec.Code != http.StatusOK {
		t.Fatalf("the connection's own address: %d %s", rec.Code, rec.Body)
	}
	rec = httptest.NewRecorder()
	req = httptest.NewRequest(http.MethodGet, "http://10.9.9.9:8080/api/plans/release", nil)
	r.Srv.Config.Handler.ServeHTTP(rec, req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, local)))
	if rec.Code != http.StatusMisdirectedRequest {
		t.Fatalf("another address: %d", rec.Code)
	}
	u, _ := url.Parse(r.Srv.URL)
	if st, _ := r.sendAs(u.Host, http.MethodGet, "/api/plans/release", ""); st != http.StatusOK {
		t.Fatalf("the server's URL: %d", st)
	}
}

// A 421 names the host the request asked for and the hosts the board answers for, so
// whoever mounted it sees what to add to WithHosts (or which address to open).
func TestAWrongHostRefusalNamesTheHostsTheBoardAnswersFor(t *testing.T) {
	refusal := func(h http.Handler, host string) (int, string, []string) {
		t.Helper()
		req := httptest.NewRequest(http.MethodGet, "/api/plans", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var e struct {
			Error struct {
				Code    string   `json:"code"`
				Message string   `json:"message"`
				Hosts   []string `json:"hosts"`
			} `json:"error"`
		}
		mustNot(t, json.Unmarshal(rec.Body.Bytes(), &e))
		if e.Error.Code != "wrong_host" {
			t.Fatalf("Host %q: %d %s", host, rec.Code, rec.Body)
		}
		return rec.Code, e.Error.Message, e.Error.Hosts
	}
	r := newRig(t)
	named := board.New(r.Store, board.WithHosts("board.example.com", "[::1]:9", "LocalHost:8080"))
	st, msg, hosts := refusal(named, "127.0.0.1:8080")
	if st != http.StatusMisdirectedRequest || !slices.Equal(hosts, []string{"board.example.com", "[::1]:9", "localhost:8080"}) {
		t.Fatalf("WithHosts: %d %q", st, hosts)
	}
	for _, want := range []string{`"127.0.0.1:8080"`, "board.example.com", "[::1]:9", "localhost:8080", "WithHosts"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message %q does not name %s", msg, want)
		}
	}
	if _, _, hosts = refusal(board.New(r.Store), "rebound.test"); !slices.Equal(hosts, []string{"localhost", "127.0.0.0/8", "[::1]"}) {
		t.Fatalf("by default: %q", hosts)
	}
	if _, msg, hosts = refusal(board.New(r.Store, board.WithHosts()), "localhost"); len(hosts) != 0 || !strings.Contains(msg, "no host") {
		t.Fatalf("WithHosts(): %q %q", msg, hosts)
	}
}
