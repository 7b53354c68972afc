package document

import (
	"strings"
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

// A waiting mark keeps the ID of the interrupt its run paused on: it reads back whole, the
// header seal covers it (a mark without one seals as older releases sealed it), and an ID
// without its waiting line is no mark.
func TestAWaitingMarkKeepsItsInterrupt(t *testing.T) {
	since := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	p := &Plan{Name: "p", Revision: 4, Content: "- [ ] a\n",
		Waiting: &Waiting{Revision: 4, Agent: "planner", Since: since, Interrupt: "9f1c-42"}}
	again, err := DecodePlan("p", EncodePlan(p))
	require.NoError(t, err)
	assert.Equal(t, p.Waiting, again.Waiting)

	bare := *p
	bare.Waiting = &Waiting{Revision: 4, Agent: "planner", Since: since}
	assert.Equal(t, strings.Replace(SealedHeader(p), ` "9f1c-42"`, "", 1), SealedHeader(&bare))
	assert.NotEqual(t, SealedHeader(p), SealedHeader(&bare))
	again, err = DecodePlan("p", EncodePlan(&bare))
	require.NoError(t, err)
	assert.Equal(t, bare.Waiting, again.Waiting)

	orphan, err := DecodePlan("p", "---\nwaiting_interrupt: \"9f1c-42\"\n---\n- [ ] a\n")
	require.NoError(t, err)
	assert.Nil(t, orphan.Waiting)
}
