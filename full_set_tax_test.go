package plan_test

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// fullSetBytes are the bytes the eight docker-agent-named tools and the instruction add to
// every model call, in each language, before the instruction taught finishing a step and
// taking the next in one call: teaching it costs no byte more.
var fullSetBytes = map[adk.Language]int{adk.LanguageEnglish: 3612, adk.LanguageChinese: 3786}

// The full set's tax (the eight tools and the instruction) stays within what it was before
// the instruction taught the ride-along, in English and Chinese.
func TestTeachingTheRideAlongKeepsTheFullSetsTax(t *testing.T) {
	for lang, limit := range fullSetBytes {
		ctx := context.Background()
		mw, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), Workspace: plan.NewMemoryBackend(), Digest: plan.DigestConfig{Disabled: true}, Language: lang})
		require.NoError(t, err)
		ctx, rc, _ := beforeAgentTools(t, ctx, mw)
		total := len(rc.Instruction) - len("base")
		for _, name := range eightTools {
			total += len(openAIFunctionJSON(t, ctx, rc, name))
		}
		t.Logf("language %v: eight tools + instruction: %d bytes (limit %d)", lang, total, limit)
		require.LessOrEqual(t, total, limit)
	}
}
