package tools

import (
	"context"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/engine"
	"github.com/einoplan/plan/internal/localfs"
)

// FileTools are offered only with a Workspace.
var FileTools = map[string]bool{ToolExportPlanToFile: true, ToolUpdatePlanFromFile: true}

func runExportPlanToFile(ctx context.Context, env *ToolEnv, a args) (any, error) {
	f := a.fields()
	name, path := f.str(pName), f.path(env)
	if f.err != nil {
		return nil, f.err
	}
	p, err := env.Store.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, engine.Canceled(ctx)
	}
	_, err = await(ctx, func() (struct{}, error) {
		return struct{}{}, env.Workspace.Write(ctx, &driver.WriteRequest{FilePath: path, Content: p.Content})
	})
	if ctx.Err() != nil {
		return nil, engine.Canceled(ctx)
	}
	if err != nil {
		e := document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonWorkspaceWrite, Path: path})
		e.Err = err
		return nil, e
	}
	return exportResult{Name: name, Path: path, Revision: p.Revision, Bytes: len(p.Content)}, nil
}

func runUpdatePlanFromFile(ctx context.Context, env *ToolEnv, a args) (any, error) {
	f := a.fields()
	name, path := f.str(pName), f.path(env)
	u := f.update(name)
	if f.err != nil {
		return nil, f.err
	}
	if err := document.ValidateName(name); err != nil {
		return nil, err
	}
	content, err := readWorkspaceFile(ctx, env.Workspace, path, env.Store.ContentCap())
	if err != nil {
		return nil, err
	}
	return putPlan(ctx, env, u, content)
}

// readWorkspaceFile reads the whole file, refusing anything over limit bytes. It returns when
// ctx ends even if the Workspace does not (a named pipe, a hung remote): the read is then
// abandoned to finish on its own.
func readWorkspaceFile(ctx context.Context, ws driver.Workspace, path string, limit int) (string, error) {
	content, err := await(ctx, func() (string, error) { return engine.ReadBounded(ctx, ws, path, int64(limit)) })
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return "", engine.Canceled(ctx)
	case engine.IsNotExist(err):
		return "", document.Fail(document.Error{Code: document.CodeNotFound, Reason: document.ReasonNoFile, Path: path})
	default:
		e := document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonWorkspaceRead, Path: path})
		e.Err = err
		return "", e
	}
	switch {
	case len(content) > limit:
		return "", document.Fail(document.Error{Code: document.CodeTooLarge, Reason: document.ReasonFileTooLarge, Path: path, Size: int64(len(content)), Limit: int64(limit)})
	case !utf8.ValidString(content):
		return "", document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonFileNotUTF8, Path: path})
	case strings.TrimSpace(content) == "":
		return "", document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonFileEmpty, Path: path})
	}
	return content, nil
}

// await runs a Workspace call and returns when it does or when ctx ends, whichever comes
// first, so a Workspace that ignores its context (a named pipe, a hung remote) cannot hold
// a run past its deadline; an abandoned call finishes on its own.
func await[T any](ctx context.Context, call func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := call()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// GuardWorkspace notes how the Workspace relates to the Store's storage: the same value (or
// one found through Unwrap, or a LocalBackend on the same root), or two LocalBackends whose
// folders may overlap on disk.
func (env *ToolEnv) GuardWorkspace(ws driver.Workspace) {
	var inner any = ws
	if b, ok := ws.(driver.Backend); ok {
		inner = engine.Innermost(b)
	}
	wk, ok1 := engine.KeyOf(inner)
	sk, ok2 := engine.KeyOf(engine.Innermost(env.Store.Backend))
	env.SameStorage = ok1 && ok2 && wk == sk
	if bl, ok := engine.Innermost(env.Store.Backend).(*localfs.Backend); ok {
		env.PlanRoot = bl.StorageName()
		if wl, ok := inner.(*localfs.Backend); ok {
			env.WsRoot = wl.StorageName()
		}
	}
}

// InPlansFolder reports whether the workspace path p names a plans folder on the Store's
// storage or something inside it, or an approval key file: the Store's own, or those of any
// other Store of this process on the storage (another middleware's BaseDir). It compares as
// a path when the Workspace is the same storage and, when the Store is on a LocalBackend, as
// the place on disk it reaches through any links, read both as a host path and, for a
// LocalBackend Workspace, under its root. A relative p is read from the root of the
// storage, and as a host path from the working folder; ".." is read lexically. On disk it
// also compares what p reaches, whoever keeps it (plansOnDisk).
func (env *ToolEnv) InPlansFolder(p string) bool {
	for _, dir := range engine.PlansFoldersOn(env.Store.Backend, env.Store.Dir) {
		if env.inFolder(p, dir) || env.inFolder(p, engine.ApprovalKeyPath(dir)) || env.inFolder(p, engine.MarksPath(dir)) {
			return true
		}
	}
	return env.plansOnDisk(p) // what p reaches on disk, whoever keeps it (plans_on_disk.go)
}

// inFolder is inPlansFolder for the one plans folder (or key file) dir.
func (env *ToolEnv) inFolder(p, dir string) bool {
	if clean := path.Clean("/" + p); env.SameStorage && (clean == dir || strings.HasPrefix(clean, strings.TrimSuffix(dir, "/")+"/")) {
		return true
	}
	if env.PlanRoot == "" {
		return false
	}
	plans := RealLocation(filepath.Join(env.PlanRoot, filepath.FromSlash(dir)))
	inside := func(target string) bool {
		return Within(RealLocation(target), plans, string(filepath.Separator))
	}
	// Whatever the Workspace is, a path that names the plans folder on this machine's disk
	// is refused: many Workspaces (eino-ext's local backend) take host paths.
	if host, err := filepath.Abs(filepath.FromSlash(p)); err == nil && inside(host) {
		return true
	}
	return env.WsRoot != "" && inside(filepath.Join(env.WsRoot, filepath.FromSlash(p)))
}

// RealLocation resolves the links of the longest existing prefix of p and keeps the rest.
func RealLocation(p string) string {
	rest := ""
	for {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// Within reports whether target is folder or lies in it; sep is the separator of both, and
// both are clean. Case is ignored, by Unicode folding: on a file system that ignores it
// (macOS, Windows) ".PLANS" is ".plans".
func Within(target, folder, sep string) bool {
	if folder == sep {
		return strings.HasPrefix(target, sep)
	}
	folder = strings.TrimSuffix(folder, sep)
	for {
		if strings.EqualFold(target, folder) {
			return true
		}
		i := strings.LastIndex(target, sep)
		if i <= 0 {
			return false
		}
		target = target[:i]
	}
}

// workspacePath checks a model-given workspace path: absolute (as Eino's file tools want),
// valid UTF-8, no NUL, no ".." element, and outside the plans folder when the Workspace is
// the plans' own storage, so a file tool can neither leave the workspace nor touch a plan,
// a tombstone or a lock behind the Store's back. file_path, the name Eino's file tools use,
// is accepted for path.
func workspacePath(a args, env *ToolEnv) (string, error) {
	given := pPath
	if _, ok := a[pPath.Name]; !ok {
		if _, alias := a[pFilePath.Name]; alias {
			given = pFilePath
		}
	}
	p, err := a.str(given)
	if err != nil {
		return "", err
	}
	if len(p) > 4096 || !utf8.ValidString(p) || strings.ContainsRune(p, 0) {
		return "", document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonPathUnusable, Field: given.Name})
	}
	for _, part := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return "", document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonPathEscapes, Field: given.Name, Path: p})
		}
	}
	if !strings.HasPrefix(p, "/") {
		return "", document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonPathRelative, Field: given.Name, Path: p})
	}
	if env.InPlansFolder(p) {
		return "", document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonPathInPlans, Field: given.Name, Path: p, Value: env.Store.Dir})
	}
	return p, nil
}

func (f *fields) path(env *ToolEnv) string {
	if f.err != nil {
		return ""
	}
	p, err := workspacePath(f.a, env)
	f.err = err
	return p
}
