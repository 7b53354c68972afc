package main

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkOperations runs table 3's read and status update on MemoryBackend at 10, 100 and
// 1,000 plans for as long as -benchtime says, so that at 1,000 plans too every plan carries
// a full history (table 3's batches of a few milliseconds give each a handful of
// revisions): through the Store, through the tool, and plantask's tool, each a
// sub-benchmark of one run; the status update also through a Store keeping no history
// ("nohistory"). Compare two builds by alternating their test binaries:
//
//	go test -run '^$' -bench Operations -benchmem -benchtime 1s
func BenchmarkOperations(b *testing.B) {
	ctx := context.Background()
	kind := memoryKind()
	for _, n := range []int{10, 100, 1000} {
		e, err := newOpEnv(ctx, kind, n)
		if err != nil {
			b.Fatal(err)
		}
		if err := e.addBare(kind); err != nil {
			e.close()
			b.Fatal(err)
		}
		for _, f := range e.ops(ctx) {
			if f.name == "create" { // table 3 times it in batches that undo their creates
				continue
			}
			for _, side := range []struct {
				name string
				run  func(int) error
			}{{"store", f.store}, {"nohistory", f.bare}, {"tool", f.tool}, {"plantask", f.plantask}} {
				if side.run == nil {
					continue
				}
				b.Run(fmt.Sprintf("%s/%d/%s/%s", kind.name, n, f.name, side.name), func(b *testing.B) {
					i := 0
					for b.Loop() {
						if err := side.run(i); err != nil {
							b.Fatal(err)
						}
						i++
					}
				})
			}
		}
		e.close()
	}
}
