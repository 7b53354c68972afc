package board_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/board"
)

// sse reads the events of one stream: kind and data.
type sse struct {
	resp *http.Response
	sc   *bufio.Scanner
}

func openEvents(t *testing.T, r *rig) *sse {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, r.Srv.URL+"/api/events", nil)
	resp, err := http.DefaultClient.Do(req)
	mustNot(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return &sse{resp: resp, sc: bufio.NewScanner(resp.Body)}
}

func (s *sse) next(t *testing.T) (kind, data string) {
	t.Helper()
	for s.sc.Scan() {
		line := s.sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			kind = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = strings.TrimPrefix(line, "data: ")
		case line == "" && kind != "":
			return kind, data
		}
	}
	t.Fatalf("the stream ended: %v", s.sc.Err())
	return "", ""
}

func TestEventStreamDeliversEveryChangeOfTheStore(t *testing.T) {
	r := newRig(t)
	r.Put("release", releasePlan)
	s := openEvents(t, r)
	if kind, _ := s.next(t); kind != "ready" {
		t.Fatalf("first event %q", kind)
	}
	r.start("release", 2, "worker-1")
	kind, data := s.next(t)
	var c plan.Change
	mustNot(t, json.Unmarshal([]byte(data), &c))
	if kind != "change" || c.Name != "release" || c.Revision != 2 || c.Progress.InProgress != 1 {
		t.Fatalf("%s %+v", kind, c)
	}
	mustNot(t, func() error { _, err := r.Store.Delete(context.Background(), "release", nil); return err }())
	kind, data = s.next(t)
	mustNot(t, json.Unmarshal([]byte(data), &c))
	if kind != "change" || c.Action != plan.ActionDelete {
		t.Fatalf("%s %+v", kind, c)
	}
}

func TestStreamsBeyondTheCapAreRefused(t *testing.T) {
	r := newRig(t, board.WithMaxStreams(1))
	s := openEvents(t, r)
	if kind, _ := s.next(t); kind != "ready" {
		t.Fatalf("first event %q", kind)
	}
	r.wantError("/api/events", http.StatusServiceUnavailable, "too_many_streams")
	s.resp.Body.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp, err := http.Get(r.Srv.URL + "/api/events")
		mustNot(t, err)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("a closed stream was never given back")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
