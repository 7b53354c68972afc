package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/einoplan/plan/internal/document"

	"github.com/stretchr/testify/require"
)

// localBenchBody is a plan of about 2 KB.
var localBenchBody = "# Release\n" + strings.Repeat("- [ ] a step of the plan, with some words\n", 50)

// storeWriter makes guarded writes of one plan through a Store on a LocalBackend.
type storeWriter struct {
	s   *Store
	rev int64
}

func newStoreWriter(tb testing.TB) *storeWriter {
	s, err := NewStore(&StoreConfig{Backend: newLocal(tb, tb.TempDir()), BaseDir: "/plans"})
	require.NoError(tb, err)
	p, err := s.Put(context.Background(), Update{Name: "bench", Content: &localBenchBody})
	require.NoError(tb, err)
	return &storeWriter{s: s, rev: p.Revision}
}

func (w *storeWriter) write(tb testing.TB) {
	p, err := w.s.Put(context.Background(), Update{Name: "bench", Content: &localBenchBody, IfRevision: &w.rev})
	if err != nil {
		tb.Fatal(err)
	}
	w.rev = p.Revision
}

// bareWriter is the least an atomic write can do: write a temp file, fsync it, rename it
// over the target. Its bytes are those the Store writes.
type bareWriter struct {
	dir, tmp, target string
	data             []byte
	syncDir          bool // also sync the folder, making the rename durable
}

func newBareWriter(tb testing.TB) *bareWriter {
	dir := filepath.Join(tb.TempDir(), "plans")
	require.NoError(tb, os.MkdirAll(dir, 0o700))
	p := &document.Plan{Name: "bench", Title: "Release", Status: "draft", Revision: 2, UpdatedAt: time.Now().UTC(), Content: localBenchBody}
	return &bareWriter{dir: dir, tmp: filepath.Join(dir, ".bench.md.tmp-1"), target: filepath.Join(dir, "bench.md"), data: []byte(document.EncodePlan(p))}
}

func (w *bareWriter) write(tb testing.TB) {
	f, err := os.OpenFile(w.tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err == nil {
		_, err = f.Write(w.data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil {
		err = os.Rename(w.tmp, w.target)
	}
	if err == nil && w.syncDir {
		var d *os.File
		if d, err = os.Open(w.dir); err == nil {
			err = d.Sync()
			d.Close()
		}
	}
	if err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkLocalWrite compares a guarded write through the Store on a LocalBackend (lock,
// read, revision check, atomic write with folder sync) with the bare atomic write of the
// same bytes, and with the bare write plus the folder sync that makes its rename durable.
// Disk latency drifts, so "interleaved" alternates the three and reports the ratios from
// one run:
//
//	go test -run '^$' -bench BenchmarkLocalWrite -benchtime 300x
func BenchmarkLocalWrite(b *testing.B) {
	b.Run("store", func(b *testing.B) {
		w := newStoreWriter(b)
		for b.Loop() {
			w.write(b)
		}
	})
	b.Run("bare", func(b *testing.B) {
		w := newBareWriter(b)
		for b.Loop() {
			w.write(b)
		}
	})
	b.Run("bare+dirsync", func(b *testing.B) {
		w := newBareWriter(b)
		w.syncDir = true
		for b.Loop() {
			w.write(b)
		}
	})
	b.Run("interleaved", func(b *testing.B) {
		sw, bw, dw := newStoreWriter(b), newBareWriter(b), newBareWriter(b)
		dw.syncDir = true
		var storeTime, bareTime, dirTime time.Duration
		n := 0
		for b.Loop() {
			t0 := time.Now()
			sw.write(b)
			t1 := time.Now()
			bw.write(b)
			t2 := time.Now()
			dw.write(b)
			storeTime += t1.Sub(t0)
			bareTime += t2.Sub(t1)
			dirTime += time.Since(t2)
			n++
		}
		b.ReportMetric(float64(storeTime.Nanoseconds())/float64(n), "store-ns/write")
		b.ReportMetric(float64(bareTime.Nanoseconds())/float64(n), "bare-ns/write")
		b.ReportMetric(float64(dirTime.Nanoseconds())/float64(n), "bare+dirsync-ns/write")
		b.ReportMetric(float64(storeTime)/float64(bareTime), "store/bare")
		b.ReportMetric(float64(storeTime)/float64(dirTime), "store/bare+dirsync")
	})
}
