package board_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/einoplan/plan/board"
)

func TestReadingNeedsASignedInPersonWhenTheBoardSaysSo(t *testing.T) {
	byHeader := board.WithPerson(func(r *http.Request) (string, error) {
		if who := r.Header.Get("X-User"); who != "" {
			return who, nil
		}
		return "", errNoSession
	})
	r := newRig(t, byHeader, board.WithSignInToRead())
	r.Put("release", releasePlan)
	reads := []string{"/api/plans", "/api/plans/release", "/api/plans/release/steps", "/api/plans/release/diff", "/api/events"}
	client := &http.Client{Timeout: 5 * time.Second} // an event stream that opens would never end
	for _, path := range reads {
		resp, err := client.Get(r.Srv.URL + path)
		if err != nil {
			t.Errorf("GET %s from nobody: %v", path, err)
			continue
		}
		var e errorBody
		if st := decode(t, resp, &e); st != http.StatusUnauthorized || e.Error.Code != "sign_in_required" {
			t.Errorf("GET %s from nobody: %d %s", path, st, e.Error.Code)
		}
	}
	for _, path := range []string{"/", "/static/board.js", "/api/me"} {
		if st, _ := r.rawGet(path); st != http.StatusOK {
			t.Errorf("GET %s from nobody: %d, want the page and who is asking", path, st)
		}
	}
	var me struct {
		SignInToRead bool `json:"sign_in_to_read"`
	}
	r.get("/api/me", &me)
	if !me.SignInToRead {
		t.Error("api/me does not say that reading needs a sign-in")
	}
	for _, path := range reads[:4] {
		req, err := http.NewRequest(http.MethodGet, r.Srv.URL+path, nil)
		mustNot(t, err)
		req.Header.Set("X-User", "alice")
		resp, err := http.DefaultClient.Do(req)
		mustNot(t, err)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s signed in: %d", path, resp.StatusCode)
		}
	}

	open := newRig(t, byHeader)
	open.Put("release", releasePlan)
	if st, _ := open.rawGet("/api/plans"); st != http.StatusOK {
		t.Fatalf("without the option, reading needs no sign-in: %d", st)
	}
	none := newRig(t, board.WithSignInToRead())
	none.Put("release", releasePlan)
	if st, _ := none.rawGet("/api/plans"); st != http.StatusUnauthorized {
		t.Fatalf("with nobody to sign in, nothing is read: %d", st)
	}
}
