// Package api declares the values a host builds and reads when it uses package plan: a
// plan and its steps, the requests a Store takes (Update, StepMove, ListOptions), what it
// reports (Change, Revision, Listing, Error) and what the middleware hands to a host's
// callbacks (GatedCall, Completion, CostReport). Package plan names each of them under the
// same name (plan.Plan is api.Plan), so a host imports plan alone; this package is where
// `go doc` shows their fields. It holds values only: reading and writing plans is package
// plan's Store.
package api
