package mcp

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/internal/document"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Plans are resources plan://NAME: Markdown, the header a person reads and then the body.

const (
	uriScheme    = "plan://"
	markdownMIME = "text/markdown"
)

// PlanURI is the resource of the plan called name.
func PlanURI(name string) string { return uriScheme + name }

// serveResources lists every plan as a resource, reads any plan:// URI, and follows the
// Store until ctx ends: each change tells the subscribed clients, each plan created or
// deleted changes the list (which tells every client).
func (s *Server) serveResources(ctx context.Context) error {
	s.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: uriScheme + "{name}", Name: "plan",
		Description: "A plan: its header, then its Markdown body.", MIMEType: markdownMIME}, s.readPlan)
	// Watch before listing: a change landing between the two is then never missed.
	changes, err := s.o.Store.Watch(ctx)
	if err != nil {
		return err
	}
	opts := plan.ListOptions{Limit: 200}
	for {
		page, err := s.o.Store.ListPage(ctx, opts)
		if err != nil {
			return err
		}
		for _, p := range page.Plans {
			s.addPlan(p.Name, p.Title)
		}
		if page.NextCursor == "" {
			break
		}
		opts.Cursor = page.NextCursor
	}
	go s.follow(ctx, changes)
	return nil
}

func (s *Server) addPlan(name, title string) {
	s.AddResource(&sdk.Resource{URI: PlanURI(name), Name: name, Title: title, MIMEType: markdownMIME}, s.readPlan)
}

// follow passes the Store's changes on to the clients.
func (s *Server) follow(ctx context.Context, changes <-chan plan.Change) {
	for c := range changes {
		switch {
		case c.Action == plan.ActionResync:
			s.resync(ctx)
			continue
		case c.Name == "":
			continue
		case c.Action == plan.ActionDelete:
			s.RemoveResources(PlanURI(c.Name))
		case c.Created:
			s.addPlan(c.Name, c.Title)
		}
		_ = s.ResourceUpdated(ctx, &sdk.ResourceUpdatedNotificationParams{URI: PlanURI(c.Name)})
	}
}

// resync lists the plans again after the watch may have missed changes: a plan added or
// deleted meanwhile changes the list.
func (s *Server) resync(ctx context.Context) {
	opts := plan.ListOptions{Limit: 200}
	for {
		page, err := s.o.Store.ListPage(ctx, opts)
		if err != nil {
			return
		}
		for _, p := range page.Plans {
			s.addPlan(p.Name, p.Title)
		}
		if page.NextCursor == "" {
			return
		}
		opts.Cursor = page.NextCursor
	}
}

// readPlan answers resources/read of plan://NAME.
func (s *Server) readPlan(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	name, ok := strings.CutPrefix(uri, uriScheme)
	if !ok || document.ValidateName(name) != nil {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	p, err := s.o.Store.Get(ctx, name)
	if err != nil {
		if plan.CodeOf(err) == plan.CodeNotFound {
			return nil, sdk.ResourceNotFoundError(uri)
		}
		return nil, err
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: markdownMIME, Text: Markdown(p)}}}, nil
}

// Markdown is a plan as a person reads it: a front matter of what its header says (title,
// status, revision, approval, who holds which step), each value a JSON string or number,
// then its body unchanged.
func Markdown(p *plan.Plan) string {
	var b strings.Builder
	line := func(key, value string) {
		if value != "" {
			fmt.Fprintf(&b, "%s: %s\n", key, strconv.Quote(value))
		}
	}
	b.WriteString("---\n")
	line("name", p.Name)
	line("title", p.Title)
	line("status", p.Status)
	fmt.Fprintf(&b, "revision: %d\n", p.Revision)
	line("updated_at", p.UpdatedAt.UTC().Format(time.RFC3339))
	line("author", p.Author)
	if p.Approval != nil {
		line("approved", fmt.Sprintf("revision %d by %s at %s", p.Approval.Revision, p.Approval.By, p.Approval.At.UTC().Format(time.RFC3339)))
	} else if p.RequiresApproval {
		line("approved", "no: steps start once a person approves")
	}
	if p.Waiting != nil {
		line("waiting", fmt.Sprintf("revision %d, asked by %s: a person approves or rejects it on the board or with planctl", p.Waiting.Revision, p.Waiting.Agent))
	}
	if p.Rejection != nil {
		line("rejected", fmt.Sprintf("revision %d by %s: %s", p.Rejection.Revision, p.Rejection.By, p.Rejection.Feedback))
	}
	line("budget", p.Budget)
	var held []string
	for _, st := range plan.ParseSteps(p.Content) {
		if st.Holder != "" {
			held = append(held, fmt.Sprintf("step %d by %s", st.Number, st.Holder))
		}
	}
	line("held", strings.Join(held, "; "))
	b.WriteString("---\n")
	b.WriteString(p.Content)
	return b.String()
}
