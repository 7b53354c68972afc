package board_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"testing"

	"github.com/einoplan/plan/api"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/board"
	"github.com/einoplan/plan/board/internal/boardrig"
)

// rig is a board over a real Store on a LocalBackend, served on loopback.
type rig struct{ *boardrig.Rig }

func newRig(t *testing.T, opts ...board.Option) *rig {
	t.Helper()
	return &rig{boardrig.NewRig(t, opts...)}
}

// asPerson signs every request in as who.
var asPerson = boardrig.AsPerson

// start moves step number of plan name to in progress, held by who, as an agent does.
func (r *rig) start(name string, number int, who string) *plan.Plan {
	r.T.Helper()
	p, _, err := r.Store.MoveStep(context.Background(), plan.StepMove{Name: name, Step: number, State: plan.StepInProgress, By: who})
	if err != nil {
		r.T.Fatal(err)
	}
	return p
}

// get sends a GET and decodes the JSON answer into out; it returns the status.
func (r *rig) get(path string, out any) int {
	r.T.Helper()
	resp, err := http.Get(r.Srv.URL + path)
	if err != nil {
		r.T.Fatal(err)
	}
	return decode(r.T, resp, out)
}

// post sends an action as the board's page does: JSON, the action header, same origin.
func (r *rig) post(path string, body any, out any) int {
	r.T.Helper()
	return r.postWith(path, body, out, map[string]string{
		"Content-Type": "application/json", board.ActionHeader: "1", "Origin": r.Srv.URL, "Sec-Fetch-Site": "same-origin"})
}

func (r *rig) postWith(path string, body any, out any, headers map[string]string) int {
	r.T.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		r.T.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, r.Srv.URL+path, bytes.NewReader(data))
	if err != nil {
		r.T.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.T.Fatal(err)
	}
	return decode(r.T, resp, out)
}

func decode(t *testing.T, resp *http.Response, out any) int {
	t.Helper()
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if out != nil {
		reflect.ValueOf(out).Elem().SetZero() // no field of an earlier answer survives
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s: %v\n%s", resp.Request.URL, err, data)
		}
	}
	return resp.StatusCode
}

// errorBody is the board's refusal.
// wantError GETs path and checks that it answers status with an error body, with code
// unless code is "".
func (r *rig) wantError(path string, status int, code string) {
	r.T.Helper()
	var e errorBody
	if st := r.get(path, &e); st != status || (code != "" && e.Error.Code != code) {
		r.T.Fatalf("GET %s: status %d %+v, want %d %s", path, st, e, status, code)
	}
}

// statusOf GETs url and returns the status it answers.
func statusOf(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	mustNot(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

type errorBody struct {
	Error struct {
		Code            string `json:"code"`
		Message         string `json:"message"`
		Revision        int64  `json:"revision"`
		CurrentRevision int64  `json:"current_revision"`
	} `json:"error"`
}

type stepJSON struct {
	Number int    `json:"number"`
	State  string `json:"state"`
	Text   string `json:"text"`
	Holder string `json:"holder"`
}

type planJSON struct {
	Name      string `json:"name"`
	Title     string `json:"title"`
	Revision  int64  `json:"revision"`
	ChangedBy string `json:"changed_by"`
	Progress  struct {
		Total   int `json:"total"`
		Percent int `json:"percent"`
	} `json:"progress"`
	Steps    []stepJSON `json:"steps"`
	Approval *struct {
		Revision int64  `json:"revision"`
		By       string `json:"by"`
	} `json:"approval"`
	Content   string         `json:"content"`
	Rejection *api.Rejection `json:"rejection"`
	Waiting   *api.Waiting   `json:"waiting"`
	History   []struct {
		Revision int64  `json:"revision"`
		Author   string `json:"author"`
		Action   string `json:"action"`
	} `json:"history"`
}

// summaryJSON is one plan of the list; Steps must stay absent.
type summaryJSON struct {
	Name        string    `json:"name"`
	Title       string    `json:"title"`
	Revision    int64     `json:"revision"`
	CurrentStep *stepJSON `json:"current_step"`
	NextStep    *stepJSON `json:"next_step"`
	Progress    struct {
		Total   int `json:"total"`
		Percent int `json:"percent"`
	} `json:"progress"`
	Steps any `json:"steps"`
}

type actionJSON struct {
	Plan    planJSON `json:"plan"`
	Changed bool     `json:"changed"`
}

func mustNot(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

var errNoSession = errors.New("no session")

func decodeBytes(t *testing.T, data []byte, out any) {
	t.Helper()
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("%v: %.300s", err, data)
	}
}
