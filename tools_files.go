package plan

import (
	"context"
)

// fileTools are offered only with a Workspace.
var fileTools = map[string]bool{ToolExportPlanToFile: true, ToolUpdatePlanFromFile: true}

func runExportPlanToFile(ctx context.Context, env *toolEnv, a args) (any, error) {
	f := a.fields()
	name, path := f.str(pName), f.path(env)
	if f.err != nil {
		return nil, f.err
	}
	p, err := env.store.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, canceled(ctx)
	}
	if err := env.workspace.Write(ctx, &WriteRequest{FilePath: path, Content: p.Content}); err != nil {
		e := fail(Error{Code: CodeInvalidArgument, Reason: ReasonWorkspaceWrite, Path: path})
		e.Err = err
		return nil, e
	}
	return exportResult{Name: name, Path: path, Revision: p.Revision, Bytes: len(p.Content)}, nil
}

func runUpdatePlanFromFile(ctx context.Context, env *toolEnv, a args) (any, error) {
	f := a.fields()
	name, path := f.str(pName), f.path(env)
	u := f.update(name, env)
	if f.err != nil {
		return nil, f.err
	}
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	content, err := readWorkspaceFile(ctx, env.workspace, path, env.store.MaxContentBytes())
	if err != nil {
		return nil, err
	}
	return putPlan(ctx, env, u, content)
}

// readWorkspaceFile reads the whole file, refusing anything over limit bytes. It returns when
// ctx ends even if the Workspace does not (a named pipe, a hung remote): the read is then
// abandoned to finish on its own.
func readWorkspaceFile(ctx context.Context, ws Workspace, path string, limit int) (string, error) {
	type result struct {
		content string
		err     error
	}
	done := make(chan result, 1)
	go func() {
		content, err := readBounded(ctx, ws, path, int64(limit))
		done <- result{content, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		return "", canceled(ctx)
	}
	switch err := r.err; {
	case err == nil:
	case ctx.Err() != nil:
		return "", canceled(ctx)
	case isNotExist(err):
		return "", fail(Error{Code: CodeNotFound, Reason: ReasonNoFile, Path: path})
	default:
		e := fail(Error{Code: CodeInvalidArgument, Reason: ReasonWorkspaceRead, Path: path})
		e.Err = err
		return "", e
	}
	if len(r.content) > limit {
		return "", fail(Error{Code: CodeTooLarge, Reason: ReasonFileTooLarge, Path: path, Size: int64(len(r.content)), Limit: int64(limit)})
	}
	return r.content, nil
}

// guardedWorkspaceDir returns the Store's folder when ws reaches the same storage as the
// Store's Backend (the same value, one found through Unwrap, or a LocalBackend on the same
// root), and "" otherwise.
func guardedWorkspaceDir(s *Store, ws Workspace) string {
	var inner any = ws
	if b, ok := ws.(Backend); ok {
		inner = innermost(b)
	}
	wk, ok1 := keyOf(inner)
	sk, ok2 := keyOf(innermost(s.backend))
	if ok1 && ok2 && wk == sk {
		return s.dir
	}
	return ""
}
