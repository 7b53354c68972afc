package tools

import "context"

type ToolSpec struct {
	Name   string
	Params []param
	run    func(ctx context.Context, env *ToolEnv, a Args) (any, error)
}

// paramNamed is the argument of spec called name. Tools take a handful, so a scan beats a map.
func paramNamed(spec ToolSpec, name string) (param, bool) {
	for _, p := range spec.Params {
		if p.Name == name {
			return p, true
		}
	}
	return param{}, false
}
