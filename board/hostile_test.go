package board_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func httptestRequest(t *testing.T, h http.Handler, target string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Host = "127.0.0.1"
	h.ServeHTTP(rec, req)
	return rec
}

func TestOddRequestsGetAnAnswerNeverAPanic(t *testing.T) {
	r := newRig(t, asPerson("alice"))
	r.Put("release", releasePlan)
	h := r.Srv.Config.Handler
	paths := []string{"/", "/api", "/api/plans/", "/api/plans/release/steps/x/holder", "/api/plans/release/steps/0/holder",
		"/api/plans/release/steps/99999999999999999999/holder", "/api/plans/%00/approve", "/api/plans/" + strings.Repeat("a", 5000),
		"/api/plans/release/diff?from=-1", "/api/plans/release/diff?to=99999999999999999999", "/static/", "/static/index.html", "/nope"}
	bodies := []string{"", "null", "[]", "{", `{"revision":"1"}`, `{"revision":-1}`, `{"revision":1,"holder":null}`,
		`{"revision":1,"holder":"a b"}`, `{"revision":1,"holder":"` + strings.Repeat("é", 100) + `"}`, `{"revision":1,"extra":1}`,
		`{"revision":1,"feedback":"` + strings.Repeat("x", 70000) + `"}`, "\xff\xfe"}
	for _, p := range paths {
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut} {
			for _, b := range bodies {
				req := httptest.NewRequest(m, "http://127.0.0.1"+p, strings.NewReader(b))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-Plan-Board", "1")
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code == 0 || rec.Code >= 500 && rec.Code != http.StatusServiceUnavailable {
					t.Errorf("%s %s %q: %d %s", m, p, b, rec.Code, rec.Body)
				}
			}
		}
	}
	malformed := []string{"", "null", "[]", "{", `{"revision":"1"}`, `{"revision":-1}`, `{"revision":1,"extra":1}`,
		`{"revision":1,"feedback":"` + strings.Repeat("x", 70000) + `"}`, "\xff\xfe"}
	for _, p := range []string{"/api/plans/release/approve", "/api/plans/release/reject", "/api/plans/release/steps/2/holder"} {
		for _, b := range malformed {
			req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1"+p, strings.NewReader(b))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Plan-Board", "1")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusBadRequest {
				t.Errorf("POST %s %q: %d, want 400", p, b, rec.Code)
			}
		}
	}
}
