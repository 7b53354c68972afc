package memfs

import (
	"context"

	"github.com/einoplan/plan/internal/vpath"
)

// DeleteLazily removes the files under one lock (driver.LazyDeleter); in memory every delete
// is as durable as any.
func (b *Backend) DeleteLazily(ctx context.Context, paths ...string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range paths {
		b.remove(vpath.Clean(p))
	}
	return nil
}
