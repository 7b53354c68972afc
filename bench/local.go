package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/einoplan/plan"
)

// localKind is plan.LocalBackend on a fresh folder under the system's temp folder.
func localKind() backendKind {
	return backendKind{name: "LocalBackend", racy: true, open: func() (*opened, error) {
		dir, err := os.MkdirTemp("", "plan-bench-")
		if err != nil {
			return nil, err
		}
		b, err := plan.NewLocalBackend(dir)
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		return &opened{
			backend: b,
			close: func() {
				b.Close()
				os.RemoveAll(dir)
			},
			seed: func(p, content string) error {
				full := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(p, "/")))
				if err := os.MkdirAll(filepath.Dir(full), 0o700); err != nil {
					return err
				}
				return os.WriteFile(full, []byte(content), 0o600)
			},
		}, nil
	}}
}
