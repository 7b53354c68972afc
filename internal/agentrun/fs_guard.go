package agentrun

import (
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/bytedance/sonic"
	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/engine"
	"github.com/einoplan/plan/internal/tools"
)

// The middleware keeps Eino's filesystem tools (adk/middlewares/filesystem) out of the plans
// folders and the approval keys of its Store's storage: plans change only through the Store,
// which checks revisions, holds and approvals, and whoever reads the key can seal approvals.
// A call whose path resolves (through links) into a plans folder or to a key file is refused
// and never runs. A search of a folder that holds one is refused too (grep, whose results
// carry file contents) or has the entries inside left out of its listing (glob, whose results
// are paths only). ls of such a folder runs: it lists names, never contents.
//
// The tools are known by Eino's names, their arguments by Eino's names and decoding. Paths
// are read as host paths (eino-ext's local backend) when the Store is on a LocalBackend and,
// when Config.Workspace is the Store's storage, as paths of that storage. On disk a path is
// also judged by what it reaches, whoever keeps it: the same file or folder as a plans folder
// or key (a bind mount, a hard link), another process's plans folder known by its layout, a
// hard-linked plan file (tools.ToolEnv.InPlansFolder, plans_on_disk.go); a search also
// covers the plans folders found under the Store's LocalBackend root (PlansOnStorage).

// Eino's filesystem tools, by their default names.
const (
	einoLs        = "ls"
	einoReadFile  = "read_file"
	einoWriteFile = "write_file"
	einoEditFile  = "edit_file"
	einoGlob      = "glob"
	einoGrep      = "grep"
)

// fileGuard judges the calls of Eino's filesystem tools.
type fileGuard struct {
	// env holds only what inPlansFolder reads: the Store and how the file tools' paths
	// relate to its storage.
	env *tools.ToolEnv
}

// newFileGuard reads the file tools' paths as host paths and, when ws is the Store's
// storage (or a LocalBackend), as paths of ws.
func newFileGuard(store *engine.Store, ws driver.Workspace) *fileGuard {
	env := &tools.ToolEnv{Store: store}
	env.GuardWorkspace(ws)
	return &fileGuard{env: env}
}

// fileVerdict is the guard's answer for one call: refused with err, or run, with keep
// applied to its result when keep is set.
type fileVerdict struct {
	Err  *document.Error
	Keep func(result string) string
	// whole is the refusal for a call with keep set whose result cannot be rewritten.
	whole *document.Error
}

// Judge decides a call of the tool name with the JSON arguments args. Arguments are decoded
// as Eino decodes them (sonic, into fields of the same names and types); arguments Eino
// cannot decode either run, to get the tool's own error.
func (g *fileGuard) Judge(name, args string) fileVerdict {
	if g == nil {
		return fileVerdict{}
	}
	switch name {
	case einoReadFile, einoWriteFile, einoEditFile:
		var a struct {
			FilePath string `json:"file_path"`
		}
		if sonic.UnmarshalString(args, &a) != nil {
			return fileVerdict{}
		}
		return g.refuseInside("file_path", a.FilePath)
	case einoLs:
		var a struct {
			Path string `json:"path"`
		}
		if sonic.UnmarshalString(args, &a) != nil {
			return fileVerdict{}
		}
		return g.refuseInside("path", orHere(a.Path))
	case einoGrep:
		var a struct {
			Path *string `json:"path,omitempty"`
		}
		if sonic.UnmarshalString(args, &a) != nil {
			return fileVerdict{}
		}
		scope := "."
		if a.Path != nil {
			scope = orHere(*a.Path)
		}
		if v := g.refuseInside("path", scope); v.Err != nil {
			return v
		}
		if g.covers(scope) {
			return fileVerdict{Err: g.refusal(document.ReasonSearchCoversPlans, "path", scope)}
		}
		return fileVerdict{}
	case einoGlob:
		var a struct {
			Pattern string `json:"pattern"`
			Path    string `json:"path"`
		}
		if sonic.UnmarshalString(args, &a) != nil {
			return fileVerdict{}
		}
		return g.judgeGlob(a.Pattern, a.Path)
	}
	return fileVerdict{}
}

// judgeGlob refuses a glob whose folder, with the fixed part of its pattern, is in a plans
// folder, and leaves out of its listing the entries in one.
func (g *fileGuard) judgeGlob(pattern, dir string) fileVerdict {
	roots := []string{dir}
	if dir == "" {
		roots = []string{"/", "."} // eino-ext's default, and a working folder's
	}
	fixed := fixedPrefix(pattern)
	var scopes []string
	for _, r := range roots {
		if v := g.refuseInside("path", r); v.Err != nil {
			return v
		}
		scopes = append(scopes, filepath.Join(r, fixed))
	}
	if fixed != "" && filepath.IsAbs(filepath.FromSlash(fixed)) {
		scopes = append(scopes, fixed)
	}
	covered := false
	for _, scope := range scopes {
		if g.inside(scope) {
			return fileVerdict{Err: g.refusal(document.ReasonPlansOffLimits, "pattern", pattern)}
		}
		covered = covered || g.covers(scope)
	}
	if !covered {
		return fileVerdict{}
	}
	return fileVerdict{Keep: func(result string) string { return g.unlisted(result, roots) },
		whole: g.refusal(document.ReasonSearchCoversPlans, "path", orHere(dir))}
}

// unlisted is a glob's listing (one path a line, relative to a root or absolute) without the
// entries in a plans folder or at a key.
func (g *fileGuard) unlisted(result string, roots []string) string {
	lines := strings.Split(result, "\n")
	kept := lines[:0]
	for _, line := range lines {
		hidden := false
		for _, loc := range append([]string{line}, joinAll(roots, line)...) {
			hidden = hidden || g.inside(loc)
		}
		if !hidden {
			kept = append(kept, line)
		}
	}
	if len(kept) == 0 {
		return "No files found" // Eino's own words for an empty listing
	}
	return strings.Join(kept, "\n")
}

// refuseInside refuses p when it resolves into a plans folder or to a key file.
func (g *fileGuard) refuseInside(field, p string) fileVerdict {
	if g.inside(p) {
		return fileVerdict{Err: g.refusal(document.ReasonPlansOffLimits, field, p)}
	}
	return fileVerdict{}
}

// inside reports whether p names a plans folder, something in one, or a key file: read
// lexically, as Eino's backends clean it, and as the kernel reads a ".." after a link.
func (g *fileGuard) inside(p string) bool {
	if g.env.InPlansFolder(p) {
		return true
	}
	return hasDotDot(p) && g.env.InPlansFolder(kernelLocation(p))
}

// covers reports whether a plans folder or key file lies in the folder scope (or is it), so
// a search of scope would reach it.
func (g *fileGuard) covers(scope string) bool {
	scopes := []string{scope}
	if hasDotDot(scope) {
		scopes = append(scopes, kernelLocation(scope))
	}
	env := g.env
	for _, target := range env.PlansOnStorage() {
		for _, s := range scopes {
			if host, err := filepath.Abs(filepath.FromSlash(s)); err == nil && tools.Within(tools.RealLocation(target), tools.RealLocation(host), string(filepath.Separator)) {
				return true
			}
			if env.WsRoot != "" && tools.Within(tools.RealLocation(target), tools.RealLocation(filepath.Join(env.WsRoot, filepath.FromSlash(s))), string(filepath.Separator)) {
				return true
			}
		}
	}
	for _, dir := range engine.PlansFoldersOn(env.Store.Backend, env.Store.Dir) {
		for _, target := range []string{dir, engine.ApprovalKeyPath(dir), engine.MarksPath(dir)} {
			for _, s := range scopes {
				if env.SameStorage && tools.Within(target, path.Clean("/"+filepath.ToSlash(s)), "/") {
					return true
				}
				if env.PlanRoot == "" {
					continue
				}
				real := tools.RealLocation(filepath.Join(env.PlanRoot, filepath.FromSlash(target)))
				if host, err := filepath.Abs(filepath.FromSlash(s)); err == nil && tools.Within(real, tools.RealLocation(host), string(filepath.Separator)) {
					return true
				}
				if env.WsRoot != "" && tools.Within(real, tools.RealLocation(filepath.Join(env.WsRoot, filepath.FromSlash(s))), string(filepath.Separator)) {
					return true
				}
			}
		}
	}
	return false
}

// refusal is the error for a refused call: the argument, the path given, and where the
// Store's plans are.
func (g *fileGuard) refusal(reason, field, p string) *document.Error {
	where := g.env.Store.Dir
	if g.env.PlanRoot != "" {
		where = filepath.Join(g.env.PlanRoot, filepath.FromSlash(where))
	}
	return document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: reason, Field: field, Path: p, Value: where})
}

// orHere is p, or "." (the working folder, as Eino's backends read "") when p is empty.
func orHere(p string) string {
	if p == "" {
		return "."
	}
	return p
}

func joinAll(roots []string, p string) []string {
	out := make([]string, 0, len(roots))
	for _, r := range roots {
		out = append(out, filepath.Join(r, filepath.FromSlash(p)))
	}
	return out
}

// fixedPrefix is the leading part of a glob pattern that has no wildcard: the folder a
// match must lie in. A pattern without wildcards names one path, the whole of it.
func fixedPrefix(pattern string) string {
	parts := strings.Split(pattern, "/")
	n := 0
	for n < len(parts) && !strings.ContainsAny(parts[n], `*?[]{}\`) {
		n++
	}
	fixed := strings.Join(parts[:n], "/")
	if fixed == "" && strings.HasPrefix(pattern, "/") {
		return "/"
	}
	return fixed
}

func hasDotDot(p string) bool {
	for _, part := range strings.FieldsFunc(p, isPathSeparator) {
		if part == ".." {
			return true
		}
	}
	return false
}

func isPathSeparator(r rune) bool { return r == '/' || os.IsPathSeparator(uint8(r)) && r < 0x80 }

// kernelLocation is the host path the kernel opens for p: each ".." applies to the place the
// links before it lead to, where a lexical clean drops the link instead. From the first part
// that does not exist on, the rest is read lexically.
func kernelLocation(p string) string {
	p = filepath.FromSlash(p)
	if !filepath.IsAbs(p) {
		wd, err := os.Getwd()
		if err != nil {
			return p
		}
		p = wd + string(filepath.Separator) + p
	}
	vol := filepath.VolumeName(p)
	cur := vol + string(filepath.Separator)
	parts := strings.FieldsFunc(p[len(vol):], isPathSeparator)
	for i, part := range parts {
		switch part {
		case ".":
		case "..":
			cur = filepath.Dir(cur)
		default:
			next := filepath.Join(cur, part)
			real, err := filepath.EvalSymlinks(next)
			if err != nil {
				return filepath.Join(append([]string{next}, parts[i+1:]...)...)
			}
			cur = real
		}
	}
	return cur
}
