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
	return b.writeWithPerm(ctx, req, privateFilePerm)
}
