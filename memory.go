package plan

import (
	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/memfs"
)

// MemoryBackend keeps plans in a map: safe for concurrent use, its guarantees end at the
// process (tests, one-process apps, caches of something durable). It offers compare-and-swap,
// bounded reads and strictly increasing modification times, so a Store on it is as safe as
// on any backend within the process. A Store given a MemoryBackend, or a wrapper that
// unwraps to one, also reads its folder stamps and lists an unchanged folder without reading
// it; a wrapper that only embeds one never lends them.
type MemoryBackend = memfs.Backend

// NewMemoryBackend returns an empty MemoryBackend.
func NewMemoryBackend() *MemoryBackend { return memfs.New() }

var (
	_ Backend          = (*MemoryBackend)(nil)
	_ driver.Workspace = (*MemoryBackend)(nil)
)
