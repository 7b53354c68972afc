package redisbackend

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/einoplan/plan/driver"

	"github.com/einoplan/plan/internal/keptlist"
)

// LsInfo lists the files and folders directly inside req.Path, sorted by path, from one
// atomic read of the folder's index. A file's ModifiedAt changes on every write to it, so
// Size and ModifiedAt together identify one version. A missing folder lists as empty. A
// subfolder that starts a group of its own (see keys.go) is listed while its index exists.
func (b *Backend) LsInfo(ctx context.Context, req *driver.LsInfoRequest) ([]driver.FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	dir := cleanPath(req.Path)
	index, err := b.client.HGetAll(ctx, b.dirKey(dir)).Result()
	if err != nil {
		return nil, fmt.Errorf("redis backend: list %s: %w", dir, err)
	}
	if l, ok := b.listings.Get(dir); ok {
		if out, next, ok := l.again(dir, index); ok {
			if next != l {
				b.listings.Put(dir, next, len(next.infos))
			}
			return out, nil
		}
	}
	l, linked := newListing(dir, index)
	out := l.infos
	if len(linked) > 0 {
		live, err := b.liveFolders(ctx, dir, linked)
		if err != nil {
			return nil, err
		}
		for _, sub := range live {
			out = append(out, driver.FileInfo{Path: joinPath(dir, sub), IsDir: true})
		}
		slices.SortFunc(out, compareInfos)
		return out, nil
	}
	if len(index) >= keptlist.MinEntries {
		b.listings.Put(dir, l, len(l.infos))
		out = slices.Clone(out)
	}
	return out, nil
}

// listing is a folder's index as LsInfo turned it into entries: the fields and values of
// the index, in the order of the entries made of them. Only the listing of a folder with
// no subfolder that starts a group of its own is kept, since those are checked on every
// listing. It is never changed once made.
type listing struct {
	fields, values []string
	infos          []driver.FileInfo
}

// newListing makes the entries of the index of dir, sorted, except the subfolders that
// start a group of their own, returned as linked for the caller to check.
func newListing(dir string, index map[string]string) (l *listing, linked []string) {
	type read struct {
		field, value string
		info         driver.FileInfo
	}
	rows := make([]read, 0, len(index))
	for field, value := range index {
		if sub, ok := strings.CutSuffix(field, "/"); ok && crossesGroups(dir, sub) {
			linked = append(linked, sub)
			continue
		}
		rows = append(rows, read{field, value, entryOf(dir, field, value)})
	}
	slices.SortFunc(rows, func(a, b read) int { return compareInfos(a.info, b.info) })
	l = &listing{fields: make([]string, len(rows)), values: make([]string, len(rows)), infos: make([]driver.FileInfo, len(rows))}
	for i, r := range rows {
		l.fields[i], l.values[i], l.infos[i] = r.field, r.value, r.info
	}
	return l, linked
}

// again lists index from l when it holds the same fields as l did: only the entries whose
// values moved are made again, and no sort is needed. next is l itself, or the listing to
// keep in its place when values moved; ok is false when the fields are not the same.
func (l *listing) again(dir string, index map[string]string) (out []driver.FileInfo, next *listing, ok bool) {
	if len(index) != len(l.fields) {
		return nil, nil, false
	}
	out = slices.Clone(l.infos)
	var values []string
	for i, field := range l.fields {
		value, found := index[field]
		if !found {
			return nil, nil, false
		}
		if value == l.values[i] {
			continue
		}
		if values == nil {
			values = slices.Clone(l.values)
		}
		values[i] = value
		out[i] = entryOf(dir, field, value)
	}
	if values == nil {
		return out, l, true
	}
	return out, &listing{fields: l.fields, values: values, infos: slices.Clone(out)}, true
}

// entryOf is the entry of the index field (a file's name, or a subfolder's name and "/")
// and its value in the folder dir.
func entryOf(dir, field, value string) driver.FileInfo {
	if sub, ok := strings.CutSuffix(field, "/"); ok {
		return driver.FileInfo{Path: joinPath(dir, sub), IsDir: true}
	}
	fi := driver.FileInfo{Path: joinPath(dir, field)}
	if size, mtime, ok := parseMeta(value); ok {
		fi.Size = size
		fi.ModifiedAt = time.UnixMicro(mtime).UTC().Format(time.RFC3339Nano)
	}
	return fi
}

// compareInfos orders entries by path, a file before a folder of the same name.
func compareInfos(a, b driver.FileInfo) int {
	if c := strings.Compare(a.Path, b.Path); c != 0 {
		return c
	}
	switch {
	case a.IsDir == b.IsDir:
		return 0
	case b.IsDir:
		return -1
	}
	return 1
}

// parseMeta decodes an index value "<size> <mtime in microseconds>".
func parseMeta(meta string) (size, mtime int64, ok bool) {
	s, m, found := strings.Cut(meta, " ")
	if !found {
		return 0, 0, false
	}
	size, err1 := strconv.ParseInt(s, 10, 64)
	mtime, err2 := strconv.ParseInt(m, 10, 64)
	return size, mtime, err1 == nil && err2 == nil
}
