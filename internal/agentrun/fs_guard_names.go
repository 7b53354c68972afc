package agentrun

import (
	"context"
	"reflect"
	"strings"

	"github.com/cloudwego/eino/components/tool"
)

// Eino's filesystem tools may be renamed (the filesystem middleware's ToolConfig.Name). The
// guard knows them by what they are, as it knows agent starters: a tool built by Eino's
// filesystem middleware, whatever its name, is judged as the tool it is. That needs the tool
// among the run's tools when the plan middleware's BeforeAgent runs: the filesystem
// middleware before it in Handlers, or the tools in the agent's config.

// einoFileToolArgs are the argument types of Eino's filesystem tools, by the default name of
// the tool that takes them.
var einoFileToolArgs = map[string]string{
	"lsArgs": einoLs, "readFileArgs": einoReadFile, "multiModalReadFileArgs": einoReadFile,
	"writeFileArgs": einoWriteFile, "editFileArgs": einoEditFile, "globArgs": einoGlob, "grepArgs": einoGrep,
}

const einoFilesystemMiddleware = "github.com/cloudwego/eino/adk/middlewares/filesystem"

// einoFileTool is the default name of the Eino filesystem tool t is, or "".
func einoFileTool(t tool.BaseTool) string {
	typ := reflect.TypeOf(t)
	if typ == nil || typ.Kind() != reflect.Pointer || typ.Elem().PkgPath() != einoToolUtil {
		return ""
	}
	name := typ.Elem().Name()
	for args, kind := range einoFileToolArgs {
		for _, end := range []string{",", "]"} {
			if strings.Contains(name, "["+einoFilesystemMiddleware+"."+args+end) {
				return kind
			}
		}
	}
	return ""
}

// renamedFileTools maps the names of the run's Eino filesystem tools that are not their
// default names to the default names.
func renamedFileTools(ctx context.Context, tools []tool.BaseTool) map[string]string {
	var renamed map[string]string
	for _, t := range tools {
		kind := einoFileTool(t)
		if kind == "" {
			continue
		}
		info, err := t.Info(ctx)
		if err != nil || info == nil || info.Name == kind {
			continue
		}
		if renamed == nil {
			renamed = map[string]string{}
		}
		renamed[info.Name] = kind
	}
	return renamed
}

// fileToolKind is the name the guard judges a call of the tool name by: the default name of
// an Eino filesystem tool renamed in this run, else name.
func (m *Middleware[M, S]) fileToolKind(ctx context.Context, name string) string {
	st, ok := ctx.Value(m.stateKey).(*runState)
	if !ok {
		return name
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if kind, ok := st.fileTools[name]; ok {
		return kind
	}
	return name
}
