package localfs

import (
	"context"

	"github.com/cloudwego/eino/adk/filesystem"
)

// privateFilePerm is the mode of a file only the user running the process may read.
const privateFilePerm = 0o600

// WritePrivate is Write for a secret: the file is created with mode 0600 whatever
// WithPermissions says, and replaces what was there (a file of another mode too) in one
// rename, so it is never readable by others, not even for an instant.
func (b *Backend) WritePrivate(ctx context.Context, req *filesystem.WriteRequest) error {
	const op = "write"
	folder, dir, base, err := b.writeTarget(ctx, req.FilePath)
	if err != nil {
		return err
	}
	defer folder.Close()
	b.sweep(folder, dir)
	if err := b.replace(folder, base, req.Content, privateFilePerm); err != nil {
		return b.wrap(op, req.FilePath, err)
	}
	return nil
}
