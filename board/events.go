package board

import (
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/einoplan/plan"
)

// keepAlive is how often an idle event stream sends a comment, so proxies keep it open.
const keepAlive = 20 * time.Second

// events answers GET /api/events with server-sent events fed by Store.Watch, until the
// client goes away:
//
//	event: ready    once the watch runs: read the plans now, and no change is missed
//	event: change   data is a plan.Change (never the body): fetch that plan again
//	event: resync   changes were missed: read every plan again
//
// Streams beyond WithMaxStreams are refused with 503.
func (b *board) events(w http.ResponseWriter, r *http.Request) {
	if b.streams.Add(1) > int64(b.cfg.maxStreams) {
		b.streams.Add(-1)
		writeError(w, &apiError{status: http.StatusServiceUnavailable, Code: "too_many_streams", Message: "the board serves too many live pages; retry later"})
		return
	}
	defer b.streams.Add(-1)
	ctx := r.Context()
	changes, err := b.store.Watch(ctx, b.cfg.watch)
	if err != nil {
		writeError(w, storeError(err))
		return
	}
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a stream outlives the server's WriteTimeout
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if sendEvent(w, rc, "ready", struct{}{}) != nil {
		return
	}
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil || rc.Flush() != nil {
				return
			}
		case c, ok := <-changes:
			if !ok {
				return
			}
			kind := "change"
			if c.Action == plan.ActionResync {
				kind = "resync"
			}
			if sendEvent(w, rc, kind, c) != nil {
				return
			}
		}
	}
}

// sendEvent writes one event whose data is v in JSON, on one line, and flushes it.
func sendEvent(w io.Writer, rc *http.ResponseController, kind string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, "event: "+kind+"\ndata: "+string(data)+"\n\n"); err != nil {
		return err
	}
	return rc.Flush()
}
