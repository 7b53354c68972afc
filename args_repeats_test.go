package plan_test

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// A key given twice reads as an alias does: a null says nothing, so a revision guard it
// follows still guards; two different values are refused in the model's language and
// nothing is written; the same value twice is one argument.
func TestARepeatedArgumentNeverDropsOrSwapsAValue(t *testing.T) {
	for _, lang := range []adk.Language{adk.LanguageEnglish, adk.LanguageChinese} {
		ctx := context.Background()
		backend := plan.NewMemoryBackend()
		store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
		require.NoError(t, err)
		body := "# Release\n- [ ] tag\n- [ ] ship\n"
		_, err = store.Put(ctx, plan.Update{Name: "release", Content: &body})
		require.NoError(t, err)
		_, err = store.SetStatus(ctx, "release", "in-progress", nil) // a teammate's change: revision 2
		require.NoError(t, err)
		mw, err := plan.New(ctx, &plan.Config{Backend: backend, AgentName: "me", Language: lang})
		require.NoError(t, err)
		ctx, _, tools := beforeAgentTools(t, ctx, mw)

		for _, tc := range []struct{ args, code, says string }{
			{`{"name":"release","content":"# Mine\n","last_known_revision":1,"last_known_revision":null}`, "revision_conflict", ""},
			{`{"name":"release","content":"# Mine\n","last_known_revision":null,"last_known_revision":1}`, "revision_conflict", ""},
			{`{"name":"release","content":"# Mine\n","last_known_revision":1,"last_known_revision":2}`, "invalid_argument", "last_known_revision"},
			{`{"name":"alpha","name":"beta","content":"# X\n"}`, "invalid_argument", "name"},
			{"```json\n{\"name\":\"alpha\",\"na\\u006de\":\"beta\",\"content\":\"# X\\n\"}\n```", "invalid_argument", "name"},
			{`"{\"name\":\"alpha\",\"name\":\"beta\",\"content\":\"# X\\n\"}"`, "invalid_argument", "name"},
			{"{\"name\":\"release\",\"content\":\"# Mine\n- [ ] x\n\",\"last_known_revision\":1,\"last_known_revision\":null}", "revision_conflict", ""},
			{"{\"name\":\"alpha\",\"content\":\"# X\n\t\",\"name\":\"beta\"}", "invalid_argument", "name"},
		} {
			out, err := tools["write_plan"].InvokableRun(ctx, tc.args)
			require.NoError(t, err)
			assert.Equal(t, tc.code, errorCode(t, out), "lang %v: %s -> %s", lang, tc.args, out)
			assert.Contains(t, out, tc.says)
			if lang == adk.LanguageChinese && tc.code == "invalid_argument" {
				assert.Contains(t, out, "出现了不止一次")
			}
		}
		p, err := store.Get(ctx, "release")
		require.NoError(t, err)
		assert.Equal(t, int64(2), p.Revision, "lang %v: a refused call wrote", lang)
		for _, name := range []string{"alpha", "beta"} {
			_, err = store.Get(ctx, name)
			assert.Equal(t, plan.CodeNotFound, plan.CodeOf(err), "lang %v: plan %s was created", lang, name)
		}

		out, err := tools["write_plan"].InvokableRun(ctx, `{"name":"release","content":"# Mine\n","last_known_revision":2,"last_known_revision":2,"content":"# Mine\n"}`)
		require.NoError(t, err)
		assert.Equal(t, "", errorCode(t, out), out)
		p, err = store.Get(ctx, "release")
		require.NoError(t, err)
		assert.Equal(t, "# Mine\n", p.Content)
	}
}
