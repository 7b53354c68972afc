package plan

import "github.com/einoplan/plan/driver"

// FileInfo is what LsInfo reports for one entry. The Store uses only the base name of Path,
// IsDir, Size and ModifiedAt; Size and ModifiedAt together key the list cache, so a backend
// that leaves ModifiedAt empty is simply never cached.
type FileInfo = driver.FileInfo

// FileContent is what Read returns.
type FileContent = driver.FileContent

// LsInfoRequest asks for the entries directly inside Path.
type LsInfoRequest = driver.LsInfoRequest

// ReadRequest asks for a file. The Store always asks for the whole file explicitly: Offset 1
// and a Limit of more lines than the largest file it accepts can hold, never Limit 0 (which
// some backends read as "the first 2,000 lines").
type ReadRequest = driver.ReadRequest

// WriteRequest replaces a whole file with Content.
type WriteRequest = driver.WriteRequest

// DeleteRequest removes one file. Deleting a missing file is not an error. It is the type of
// Eino's plantask, so a backend written for plantask is a Backend as it is.
type DeleteRequest = driver.DeleteRequest

// Backend stores bytes at paths. It is the same shape as the Backend of Eino's plantask
// middleware, so any Eino filesystem backend that can also delete fits.
//
// What the Store needs of a Backend:
//   - Write replaces a whole file atomically: a reader sees the old or the new content.
//   - Read returns the whole file when asked for Offset 1 and a large Limit; the Store checks
//     what comes back against the size LsInfo reports, where it reports one.
//   - Read of a missing file returns an error for which errors.Is(err, fs.ErrNotExist) holds;
//     backends that only say "not found" in the message are recognised as well.
//   - An entry that can never hold a plan (a link, a pipe, a folder) is refused with an error
//     wrapping driver.ErrNotRegularFile, and Delete removes the entry itself.
//
// All plan semantics (names, revisions, locking) live in the Store, never in a Backend.
// A wrapper (logging, metrics) should have an Unwrap() Backend method: the Store then sees
// that it shares storage with what it wraps and finds the capabilities of package driver through it.
type Backend = driver.Backend

// Workspace is the agent's own file system, used by export_plan_to_file and
// update_plan_from_file. Any Eino filesystem.Backend satisfies it, so the export → edit →
// update loop runs on the same files the agent's file tools see.
type Workspace = driver.Workspace

// Unwrapper is implemented by a Backend that wraps another one (logging, metrics, retries).
// The Store follows Unwrap to the innermost Backend to recognise two values on one storage,
// so they share one lock, and to find the capabilities of package driver, which it then calls in the wrapper's place. A wrapper that changes the
// bytes or the paths (encryption, a prefix) must not expose Unwrap. A wrapper that only
// embeds a Backend as an anonymous field is followed for the storage's identity and its
// driver.Locker, never for the other capabilities, since it may override any method.
type Unwrapper = driver.Unwrapper
