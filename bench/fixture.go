package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/einoplan/plan/internal/document"

	"github.com/bytedance/sonic"
	"github.com/einoplan/plan"
)

// migrationPhases are the 60 checklist items of the edit-loop plan, 8 to 12 words each.
var migrationPhases = []struct {
	name  string
	items []string
}{
	{"Preparation", []string{
		"Inventory every billing table, index and trigger in the current schema",
		"Record current query latencies from the production dashboards for comparison",
		"Freeze schema changes on the billing service until the migration ends",
		"Create a migration channel and name an owner for each phase",
		"Write the rollback procedure and have the on-call lead review it",
		"Confirm backup retention covers at least fourteen days of snapshots",
		"Provision a Postgres 16 staging cluster matching production instance sizes",
		"Enable logical replication on the old primary with a dedicated slot",
		"Add connection pool settings for the new cluster to the config repo",
		"Grant the migration role read access on every billing schema",
	}},
	{"Schema", []string{
		"Dump the billing schema without data and load it into staging",
		"Replace deprecated serial columns with identity columns in the dump",
		"Rebuild the invoice indexes using the new deduplication setting",
		"Convert money columns from float to numeric with explicit precision",
		"Recreate the audit triggers and check that they fire on updates",
		"Run the schema diff tool and resolve every reported difference",
		"Add the missing foreign keys between the payments and invoices tables",
		"Update the ORM models to match the new column types",
		"Regenerate the database access layer and commit the generated code",
		"Review all schema changes with the data platform team",
	}},
	{"Data copy", []string{
		"Start the initial bulk copy of customers and subscriptions tables",
		"Copy the invoices table in monthly batches to limit lock time",
		"Copy the payments table and verify row counts for each month",
		"Start logical replication from the old primary to the staging cluster",
		"Watch replication lag and keep it under five seconds",
		"Compare checksums of every table between the old and new clusters",
		"Fix rows that failed the numeric conversion and rerun the checks",
		"Document the copy timings so the production run can be scheduled",
		"Repeat the full copy on a production-sized snapshot for timing",
		"Sign off the data copy results with the finance analyst",
	}},
	{"Application", []string{
		"Add a feature flag that routes billing reads to the new cluster",
		"Switch the invoice rendering job to the new connection string",
		"Run the billing integration test suite against the staging cluster",
		"Fix the three queries that rely on implicit float rounding",
		"Update the nightly reconciliation job to use numeric arithmetic",
		"Load test the checkout path at twice the peak request rate",
		"Tune work_mem and shared_buffers based on the load test results",
		"Verify that retries on serialization failures stay below one percent",
		"Review slow query logs and add indexes where query plans regressed",
		"Deploy the application changes to production behind the disabled flag",
	}},
	{"Cutover", []string{
		"Announce the maintenance window to support and the finance team",
		"Pause the invoice scheduler and drain the payment webhook queue",
		"Set the old primary to read only and wait for replication",
		"Confirm replication lag is zero and checksums match on all tables",
		"Promote the new cluster and update the service discovery entry",
		"Enable the feature flag for internal accounts and test a checkout",
		"Enable the flag for all customers and watch the error rate",
		"Resume the invoice scheduler and process the webhook backlog",
		"Keep the old primary running read only for seven days",
		"Post the cutover summary with timings in the migration channel",
	}},
	{"Follow-up", []string{
		"Compare query latencies with the numbers recorded before the migration",
		"Remove the feature flag and the old connection settings from config",
		"Drop the replication slot and stop logging on the old primary",
		"Delete staging data copies that contain customer billing records",
		"Update the runbooks and architecture diagrams for the new cluster",
		"Archive the old primary after the final backup has been verified",
		"Reconcile one full month of invoices between old and new exports",
		"Close the schema freeze and tell teams they may migrate again",
		"Hold a short retrospective and record what to change next time",
		"Mark the migration epic done and release the on-call rotation",
	}},
}

// editStep is the step the edit loop marks done: steps before it are completed and it is
// in progress.
const editStep = 30

// planItems returns the 60 items in order.
func planItems() []string {
	var out []string
	for _, ph := range migrationPhases {
		out = append(out, ph.items...)
	}
	return out
}

// stepLine renders item number n (1-based) in the state the edit loop starts from.
func stepLine(n int, text string) string {
	switch {
	case n < editStep:
		return "- [x] " + text
	case n == editStep:
		return "- [~] " + text
	}
	return "- [ ] " + text
}

// migrationPlan returns the edit-loop plan body: a realistic 60-step plan halfway done.
func migrationPlan() string {
	var b strings.Builder
	b.WriteString("# Migrate billing to Postgres 16\n\n")
	b.WriteString("## Goal\nBilling runs on the new Postgres 16 cluster with no lost invoices and no more than 15 minutes of downtime.\n\n")
	b.WriteString("## Context\n- Current primary: Postgres 11 on bare metal, 1.2 TB, about 900 writes/s at peak.\n")
	b.WriteString("- Finance needs invoice totals to match to the cent; money columns are floats today.\n")
	b.WriteString("- Owners: data platform (cluster), billing team (application), finance (sign-off).\n\n")
	b.WriteString("## Steps\n")
	n := 0
	for _, ph := range migrationPhases {
		fmt.Fprintf(&b, "\n### %s\n", ph.name)
		for _, it := range ph.items {
			n++
			b.WriteString(stepLine(n, it) + "\n")
		}
	}
	b.WriteString("\n## Risks\n- Replication lag during the copy: throttle batches and copy at night.\n")
	b.WriteString("- Rounding differences after the numeric conversion: reconcile before cutover.\n\n")
	b.WriteString("## Verification\n- Integration suite green against the new cluster.\n- One month of invoices reconciled between old and new exports.\n")
	return b.String()
}

// entryText returns the subject and description of a small entry used by the operation
// benchmarks, and the plan body holding the same text, so both libraries store about the
// same bytes per entry.
func entryText(i int) (subject, description, body string) {
	items := planItems()
	subject = items[i%len(items)]
	var b strings.Builder
	b.WriteString("Part of the Postgres 16 migration of billing. Done when checked by the phase owner.\n")
	for k := 0; k < 5; k++ {
		b.WriteString("- [ ] " + items[(i+1+k)%len(items)] + "\n")
	}
	description = b.String()
	return subject, description, "# " + subject + "\n\n" + description
}

const (
	plansDir = "/plans"
	tasksDir = "/tasks"
)

func planName(i int) string { return fmt.Sprintf("p%05d", i) }

// seedPlans stores n plans named planName(0..n-1), each holding entryText's body, as the
// Store writes them (revision 1).
func seedPlans(o *opened, n int) error {
	base := time.Now().UTC().Add(-time.Hour)
	for i := 0; i < n; i++ {
		subject, _, body := entryText(i)
		p := &plan.Plan{Name: planName(i), Title: subject, Status: "draft", Author: "bench", Revision: 1,
			UpdatedAt: base.Add(time.Duration(i) * time.Millisecond), Content: body}
		if err := o.seed(plansDir+"/"+p.Name+".md", document.EncodePlan(p)); err != nil {
			return err
		}
	}
	return nil
}

// taskFile is the JSON plantask's TaskCreate writes, field for field.
type taskFile struct {
	ID          string   `json:"id"`
	Subject     string   `json:"subject"`
	Description string   `json:"description"`
	Status      string   `json:"status"`
	Blocks      []string `json:"blocks"`
	BlockedBy   []string `json:"blockedBy"`
	ActiveForm  string   `json:"activeForm,omitempty"`
}

// seedTasks stores n plantask tasks with IDs 1..n holding entryText's subject and
// description, and the high-water mark TaskCreate keeps.
func seedTasks(o *opened, n int) error {
	for i := 0; i < n; i++ {
		subject, description, _ := entryText(i)
		js, err := sonic.MarshalString(taskFile{ID: fmt.Sprint(i + 1), Subject: subject, Description: description,
			Status: "pending", Blocks: []string{}, BlockedBy: []string{}, ActiveForm: "Working on it"})
		if err != nil {
			return err
		}
		if err := o.seed(fmt.Sprintf("%s/%d.json", tasksDir, i+1), js); err != nil {
			return err
		}
	}
	if n == 0 {
		return nil
	}
	return o.seed(tasksDir+"/.highwatermark", fmt.Sprint(n))
}
