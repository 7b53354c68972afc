package main

import (
	"context"
	"os"
	"testing"
)

func BenchmarkZZLocal(b *testing.B) {
	ctx := context.Background()
	e, err := newOpEnv(ctx, localKind(), 10)
	if err != nil {
		b.Fatal(err)
	}
	defer e.close()
	for _, f := range e.ops(ctx) {
		if f.name != "status update" {
			continue
		}
		var run func(int) error
		switch os.Getenv("ZZSIDE") {
		case "store":
			run = f.store
		case "tool":
			run = f.tool
		default:
			run = f.plantask
		}
		for i := 0; i < 20; i++ {
			run(i)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := run(i + 20); err != nil {
				b.Fatal(err)
			}
		}
	}
}
