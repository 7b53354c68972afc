package document

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// DecodePlan refuses as corrupt an updated_at that is out of range in UTC, and every time it
// accepts encodes and decodes back the same, in UTC.
func TestDecodePlanRejectsTimesEncodePlanCannotWrite(t *testing.T) {
	for _, ts := range []string{
		"0000-01-01T00:00:00+01:00", // 1 BC 23:00 in UTC
		"9999-12-31T23:30:00-01:00", // year 10000 in UTC
	} {
		_, err := DecodePlan("p", "---\nupdated_at: \""+ts+"\"\n---\n")
		require.Error(t, err, ts)
		assert.Equal(t, CodeCorrupt, CodeOf(err), ts)
	}
	for _, ts := range []string{"0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z", "0001-01-01T01:00:00+01:00"} {
		p, err := DecodePlan("p", "---\nupdated_at: \""+ts+"\"\n---\n")
		require.NoError(t, err, ts)
		again, err := DecodePlan("p", EncodePlan(p))
		require.NoError(t, err, ts)
		assert.Equal(t, *p, *again, ts)
		assert.Equal(t, time.UTC, again.UpdatedAt.Location())
	}
}
