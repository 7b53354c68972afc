package acp

import (
	"context"
	"errors"

	"github.com/einoplan/plan"
)

// Follow sends send one PlanUpdate per change any process makes to the plans of store, in
// the order the Store's Watch reports them, until ctx ends or send fails: first every plan
// as it is, so the client starts with the whole picture, then the revision each change
// made (the plan as it is now when history no longer keeps that revision). A deleted plan
// and a resync send nothing: ACP v2's stable schema has no message that removes a plan, and
// the changes after a resync carry the plans again. It returns ctx's error, send's, or the
// Store's when the watch cannot start.
func Follow(ctx context.Context, store *plan.Store, send func(update []byte) error) error {
	if store == nil || send == nil {
		return errors.New("acp: Follow needs a Store and a send function")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Watch before listing: a change landing between the two is then never missed.
	changes, err := store.Watch(ctx)
	if err != nil {
		return err
	}
	if err := sendAll(ctx, store, send); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case c, ok := <-changes:
			if !ok {
				return ctx.Err()
			}
			if c.Name == "" || c.Action == plan.ActionDelete || c.Action == plan.ActionResync {
				continue
			}
			p, err := store.GetRevision(ctx, c.Name, c.Revision)
			if err != nil {
				if p, err = store.Get(ctx, c.Name); err != nil {
					continue // deleted since, or unreadable: the next change tells
				}
			}
			if err := sendPlan(p, send); err != nil {
				return err
			}
		}
	}
}

// sendAll sends every plan of store as it is now, a page at a time.
func sendAll(ctx context.Context, store *plan.Store, send func([]byte) error) error {
	opts := plan.ListOptions{Limit: 100}
	for {
		page, err := store.ListPage(ctx, opts)
		if err != nil {
			return err
		}
		for _, s := range page.Plans {
			p, err := store.Get(ctx, s.Name)
			if err != nil {
				continue // deleted since, or unreadable: ListPage warned, Watch will tell
			}
			if err := sendPlan(p, send); err != nil {
				return err
			}
		}
		if page.NextCursor == "" {
			return nil
		}
		opts.Cursor = page.NextCursor
	}
}

func sendPlan(p *plan.Plan, send func([]byte) error) error {
	u, err := PlanUpdate(p)
	if err != nil {
		return err
	}
	return send(u)
}
