package engine

import (
	"context"
	"github.com/einoplan/plan/driver"
	"path"
	"strconv"
	"strings"
)

// strayDir is where the Store sets aside what stood where its history folders go.
func (s *Store) strayDir() string { return path.Join(s.Dir, ".stray") }

// setAsideStrays moves whatever stands at <BaseDir>/.history or .history/<name> and is not a
// folder (a file, a link, a pipe) out of the way, so history, and with it every write, goes
// on. A regular file's bytes are kept in <BaseDir>/.stray, which List reports. It reports
// whether anything was moved.
func (s *Store) setAsideStrays(ctx context.Context, name string) bool {
	moved := false
	for _, p := range [...]string{path.Join(s.Dir, ".history"), s.historyDir(name)} {
		if s.setAside(ctx, p) {
			moved = true
		}
	}
	return moved
}

func (s *Store) setAside(ctx context.Context, p string) bool {
	infos, err := s.Backend.LsInfo(ctx, &driver.LsInfoRequest{Path: path.Dir(p)})
	if err != nil {
		return false
	}
	stray := false
	for _, info := range infos {
		if path.Base(info.Path) == path.Base(p) && !info.IsDir {
			stray = true
		}
	}
	if !stray {
		return false
	}
	raw, exists, err := s.readRaw(ctx, p)
	keep := err == nil && exists
	if p == s.strayDir() {
		// A stray where the stray folder goes makes way first, then goes in.
		return s.Backend.Delete(ctx, &driver.DeleteRequest{FilePath: p}) == nil && (!keep || s.keepStray(ctx, p, raw))
	}
	if keep && !s.keepStray(ctx, p, raw) {
		return false
	}
	return s.Backend.Delete(ctx, &driver.DeleteRequest{FilePath: p}) == nil
}

// keepStray writes raw, the bytes of the stray at p, into the stray folder; should a stray
// stand where that folder goes (a file at .stray), it is set aside first.
func (s *Store) keepStray(ctx context.Context, p string, raw string) bool {
	kept := path.Join(s.strayDir(), strings.TrimPrefix(strings.ReplaceAll(strings.TrimPrefix(p, s.Dir), "/", "_"), "_")+"-"+strconv.FormatInt(s.Now().UnixNano(), 10))
	if s.Backend.Write(ctx, &driver.WriteRequest{FilePath: kept, Content: raw}) == nil {
		return true
	}
	return p != s.strayDir() && s.setAside(ctx, s.strayDir()) &&
		s.Backend.Write(ctx, &driver.WriteRequest{FilePath: kept, Content: raw}) == nil
}
