//go:build !(linux && (amd64 || arm64))

package localfs

import (
	"context"
	"os"
)

// readFolder returns the names in the open folder dir that keep accepts, in the order the
// file system gives them, each with what lstat reports of it through folder; names removed
// before their stat are left out.
func readFolder(ctx context.Context, dir *os.File, folder *os.Root, keep func(name string) bool) ([]string, []entryStat, error) {
	all, err := dir.Readdirnames(-1)
	if err != nil {
		return nil, nil, err
	}
	names := all[:0]
	for _, name := range all {
		if keep(name) {
			names = append(names, name)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	stats, err := statNamesIn(folder, names)
	return joinBatches([]*statBatch{{names: names, stats: stats, err: err}})
}
