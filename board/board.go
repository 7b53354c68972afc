package board

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/einoplan/plan"
)

// PersonFunc names the person who sends a request, from whatever the host authenticates
// with (a session cookie, a header set by a proxy). An error, or an empty name, means the
// request comes from nobody known, and every action it asks for is refused.
type PersonFunc func(*http.Request) (person string, err error)

// Decision is a person's verdict on one revision of a plan, given on the board: Approved
// with Feedback optional, or rejected with Feedback. By is the person.
type Decision struct {
	Name     string
	Revision int64
	plan.ApprovalDecision
}

// Option configures a board. Options apply in order, a later one replacing an earlier one
// of the same kind; a nil Option is ignored.
type Option func(*config)

type config struct {
	person     PersonFunc
	onDecision func(context.Context, Decision)
	maxStreams int
	watch      plan.WatchOptions
	hosts      []hostName
	hostsSet   bool
	// signInToRead: WithSignInToRead.
	signInToRead bool
	// secret, secretSet, openReads: WithSecret and WithReadsWithoutSecret.
	secret    string
	secretSet bool
	openReads bool
}

// DefaultMaxStreams is how many event streams a board serves at once unless WithMaxStreams
// says otherwise.
const DefaultMaxStreams = 256

// WithPerson lets people act on the board (approve, reject, hand steps over) as the person f
// names; each action is recorded in the plan's history under that name. Without it the board
// is read-only and every action is refused with 403.
func WithPerson(f PersonFunc) Option { return func(c *config) { c.person = f } }

// OnDecision calls f after each approval (already written by Store.Approve) and each
// rejection made on the board, so a host can resume an agent run that waits in
// request_plan_approval with d.ApprovalDecision. f runs synchronously in the request.
func OnDecision(f func(ctx context.Context, d Decision)) Option {
	return func(c *config) { c.onDecision = f }
}

// WithMaxStreams caps the event streams served at once; the next one is refused with 503
// and the page retries. n < 1 keeps DefaultMaxStreams.
func WithMaxStreams(n int) Option {
	return func(c *config) {
		if n >= 1 {
			c.maxStreams = n
		}
	}
}

// WithWatchOptions tunes the Store.Watch behind each event stream.
func WithWatchOptions(o plan.WatchOptions) Option { return func(c *config) { c.watch = o } }

// board is the handler New returns.
type board struct {
	store   *plan.Store
	cfg     config
	mux     *http.ServeMux
	streams atomic.Int64
}

// New returns the board of store as an http.Handler: the page at "/", the JSON API under
// "/api/", the event stream at "/api/events". It answers only for its own host names
// (WithHosts), and every answer is bounded in size whatever the plans hold: the list is
// of summaries, in pages capped in bytes, and steps come per plan, in pages too. Mount it at a folder of any server with
// http.StripPrefix; its URLs are relative to that folder. A nil store gives a handler that
// answers 503 to everything.
func New(store *plan.Store, opts ...Option) http.Handler {
	b := &board{store: store, cfg: config{maxStreams: DefaultMaxStreams}}
	for _, o := range opts {
		if o != nil {
			o(&b.cfg)
		}
	}
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", b.page)
	m.HandleFunc("GET /static/{file}", b.asset)
	m.HandleFunc("GET /api/me", b.me)
	m.HandleFunc("GET /api/plans", b.read(b.listPlans))
	m.HandleFunc("GET /api/plans/{name}", b.read(b.onePlan))
	m.HandleFunc("GET /api/plans/{name}/diff", b.read(b.diff))
	m.HandleFunc("GET /api/plans/{name}/steps", b.read(b.planSteps))
	m.HandleFunc("GET /api/events", b.read(b.events))
	m.HandleFunc("POST /api/plans/{name}/approve", b.action(b.approve))
	m.HandleFunc("POST /api/plans/{name}/reject", b.action(b.reject))
	m.HandleFunc("POST /api/plans/{name}/steps/{step}/holder", b.action(b.handOver))
	m.HandleFunc("POST /api/plans/{name}/steps/{step}/complete", b.action(b.completeReview))
	m.HandleFunc("POST /api/plans/{name}/comments", b.action(b.comment))
	m.HandleFunc("POST /api/plans/{name}/comments/{id}/resolve", b.action(b.resolveComment))
	m.HandleFunc("POST /api/plans/{name}/budget", b.action(b.raiseBudget))
	m.HandleFunc("/", b.notFound)
	b.mux = m
	return b
}

// ServeHTTP answers one request; it never panics on any input. A request for a host the
// board does not answer for (see WithHosts) is refused first, then one without the board's
// secret (WithSecret).
func (b *board) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !b.hostAllowed(r) {
		writeError(w, wrongHost())
		return
	}
	if !b.checkSecret(w, r) {
		return
	}
	if b.store == nil {
		writeError(w, &apiError{status: http.StatusServiceUnavailable, Code: "no_store", Message: "the board has no plan store"})
		return
	}
	if r.URL.Path == "" {
		// Mounted with StripPrefix("/board") and asked for "/board": the page's relative
		// URLs need the trailing slash.
		http.Redirect(w, r, pathOf(r)+"/", http.StatusMovedPermanently)
		return
	}
	b.mux.ServeHTTP(w, r)
}

// pathOf is the path the client asked for, before any StripPrefix.
func pathOf(r *http.Request) string {
	p, _, _ := strings.Cut(r.RequestURI, "?")
	return p
}

func (b *board) notFound(w http.ResponseWriter, _ *http.Request) {
	writeError(w, &apiError{status: http.StatusNotFound, Code: "no_such_page", Message: "no such page on the board"})
}
