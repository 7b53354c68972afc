package agentrun

import (
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/stretchr/testify/require"
)

// TestEinoLanguageProbe reads back every language adk.SetLanguage sets, in turn and again,
// so an Eino release whose default texts stop following the language fails here.
func TestEinoLanguageProbe(t *testing.T) {
	t.Cleanup(func() { _ = adk.SetLanguage(adk.LanguageEnglish) })
	for _, lang := range []adk.Language{adk.LanguageChinese, adk.LanguageEnglish, adk.LanguageChinese, adk.LanguageEnglish} {
		require.NoError(t, adk.SetLanguage(lang))
		require.Equal(t, lang, EinoLanguage())
	}
}
