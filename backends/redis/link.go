package redisbackend

import (
	"context"
	"path"
)

// A group's top folder is listed in its parent's index, which lives in another group and so
// another slot: no script can update both. The entry is kept right after the script instead:
//
//   - a write that created the group's index links the folder into every ancestor;
//   - a delete that removed it unlinks the folder, then checks whether a concurrent write
//     brought the index back and, if so, links it again; a parent left empty is unlinked
//     from its own parent the same way.
//
// LsInfo lists such an entry only while the folder's index exists, and clears it once it
// does not, so a race or a client that died between the script and the link shows at worst
// an unlisted folder (whose files stay readable and listed) until the next write that
// re-creates it, never a folder that is not there.

// relink brings the entries of group folder g in its ancestors in line with whether g's
// index exists. Errors are ignored: the change itself has landed, and LsInfo guards
// against stale entries.
func (b *Backend) relink(ctx context.Context, g string) {
	exists, err := b.client.Exists(ctx, b.dirKey(g)).Result()
	if err != nil {
		return
	}
	if exists == 1 {
		b.link(ctx, g)
		return
	}
	for d := g; d != "/"; {
		parent := parentDir(d)
		emptied, err := unlinkScript.Run(ctx, b.client, []string{b.dirKey(parent)}, path.Base(d)+"/").Int()
		if err != nil {
			return
		}
		if n, err := b.client.Exists(ctx, b.dirKey(d)).Result(); err != nil || n == 1 {
			b.link(ctx, d)
			return
		}
		if emptied == 0 {
			return
		}
		d = parent
	}
}

// link records folder d in the index of each of its ancestors.
func (b *Backend) link(ctx context.Context, d string) {
	pipe := b.client.Pipeline()
	for d != "/" {
		parent := parentDir(d)
		pipe.HSet(ctx, b.dirKey(parent), path.Base(d)+"/", "")
		d = parent
	}
	_, _ = pipe.Exec(ctx)
}

// liveFolders returns those of the subfolders names of dir, each the top of a group of its
// own, whose index exists, and clears the entries of the others.
func (b *Backend) liveFolders(ctx context.Context, dir string, names []string) ([]string, error) {
	if len(names) == 0 {
		return nil, nil
	}
	pipe := b.client.Pipeline()
	for _, n := range names {
		pipe.Exists(ctx, b.dirKey(joinPath(dir, n)))
	}
	cmds, err := pipe.Exec(ctx)
	if err != nil {
		return nil, err
	}
	var live []string
	for i, c := range cmds {
		if c.(interface{ Val() int64 }).Val() == 1 {
			live = append(live, names[i])
		} else {
			b.relink(ctx, joinPath(dir, names[i])) // a stale entry: clear it
		}
	}
	return live, nil
}
