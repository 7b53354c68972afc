package plan

import "github.com/einoplan/plan/driver"

// Backend stores bytes at paths: the Backend of package driver, the same shape as the
// Backend of Eino's plantask middleware, so any Eino filesystem backend that can also delete
// fits. `go doc github.com/einoplan/plan/driver Backend` says what the Store needs of one;
// its request types and the optional capabilities a backend may offer are declared there
// too. All plan semantics (names, revisions, locking) live in the Store, never in a Backend.
type Backend = driver.Backend
