package plan

import "github.com/einoplan/plan/internal/engine"

// Change describes one successful mutation. It never carries the plan's body.
type Change = engine.Change

// CheckReport is what an upgrade left to do in a plans folder.
type CheckReport = engine.CheckReport

const DefaultBaseDir = engine.DefaultBaseDir

const DefaultHistoryLimit = engine.DefaultHistoryLimit

const DefaultMaxContentBytes = engine.DefaultMaxContentBytes

// ListOptions selects a page of plans, in name order.
type ListOptions = engine.ListOptions

// Listing is the result of List: summaries sorted by name, and one warning per plan file
// that could not be read, so "no plans" is never confused with "some failed to load". From
// ListPage, Plans is one page: Total counts every plan that matches, and NextCursor, when
// not empty, continues after the page. The steps and approval a summary points to are
// shared with the Store's cache, which every later List and digest reads: never change them.
type Listing = engine.Listing

// MigrateReport is what Migrate did to one plan.
type MigrateReport = engine.MigrateReport

// PlanCheck is what an upgrade left to do for one plan.
type PlanCheck = engine.PlanCheck

// Revision describes one kept revision of a plan, without its body.
type Revision = engine.Revision

// StepMove asks to move one checklist step of an existing plan.
type StepMove = engine.StepMove

// StoreConfig configures a Store.
type StoreConfig = engine.StoreConfig

// Update is a create-or-update request. Nil or empty fields keep their stored value (a
// create fills them with defaults: the body's first heading or the name for Title,
// "draft" for Status, StoreConfig.DefaultAuthor for Author).
type Update = engine.Update

// Warning names a plan file that List could not summarize.
type Warning = engine.Warning

// WatchOptions tunes Store.Watch. The zero value gives the defaults.
type WatchOptions = engine.WatchOptions
