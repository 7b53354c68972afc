// Package boardrig serves a board over a real Store for the board's tests and its browser
// tests.
package boardrig

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/board"
)

// Serve returns a Store on a LocalBackend in a temporary folder and its board, built with
// opts, served on loopback until the test ends.
func Serve(t *testing.T, opts ...board.Option) (*plan.Store, *httptest.Server) {
	t.Helper()
	backend, err := plan.NewLocalBackend(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { backend.Close() })
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(board.New(store, opts...))
	t.Cleanup(srv.Close)
	return store, srv
}

// AsPerson signs every request in as who.
func AsPerson(who string) board.Option {
	return board.WithPerson(func(*http.Request) (string, error) { return who, nil })
}

// Put writes plan name with body as the planner.
func Put(t *testing.T, store *plan.Store, name, body string) *plan.Plan {
	t.Helper()
	p, err := store.Put(plan.WithActor(context.Background(), "planner"), plan.Update{Name: name, Content: &body})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Rig is a board over a real Store, served on loopback; the tests of each package embed it
// and add their own ways to call it.
type Rig struct {
	T     *testing.T
	Store *plan.Store
	Srv   *httptest.Server
}

// NewRig serves a board built with opts over a fresh Store (Serve).
func NewRig(t *testing.T, opts ...board.Option) *Rig {
	t.Helper()
	store, srv := Serve(t, opts...)
	return &Rig{T: t, Store: store, Srv: srv}
}

// Put writes plan name with body as the planner.
func (r *Rig) Put(name, body string) *plan.Plan {
	r.T.Helper()
	return Put(r.T, r.Store, name, body)
}
