package plan_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// tenant embeds a Backend and overrides all four methods to keep each tenant under its
// own prefix: the ordinary Go way to decorate an interface.
type tenant struct {
	plan.Backend
	prefix string
}

func (t tenant) LsInfo(ctx context.Context, r *plan.LsInfoRequest) ([]plan.FileInfo, error) {
	return t.Backend.LsInfo(ctx, &plan.LsInfoRequest{Path: t.prefix + r.Path})
}

func (t tenant) Read(ctx context.Context, r *plan.ReadRequest) (*plan.FileContent, error) {
	c := *r
	c.FilePath = t.prefix + r.FilePath
	return t.Backend.Read(ctx, &c)
}

func (t tenant) Write(ctx context.Context, r *plan.WriteRequest) error {
	return t.Backend.Write(ctx, &plan.WriteRequest{FilePath: t.prefix + r.FilePath, Content: r.Content})
}

func (t tenant) Delete(ctx context.Context, r *plan.DeleteRequest) error {
	return t.Backend.Delete(ctx, &plan.DeleteRequest{FilePath: t.prefix + r.FilePath})
}

// A wrapper that embeds a Backend and overrides its four methods is used through those methods
// only: capabilities of the embedded Backend are never used behind them, so a tenant's plan
// stays under its prefix and reads back.
func TestEmbeddedWrapperOverridesAreNeverBypassed(t *testing.T) {
	ctx := context.Background()
	mem := plan.NewMemoryBackend()
	a := storeOn(t, tenant{mem, "/a"}, "")
	root := storeOn(t, mem, "")
	_, err := a.Put(ctx, plan.Update{Name: "secret", Content: ptrTo("- [ ] tenant a only\n")})
	require.NoError(t, err)

	_, err = a.Get(ctx, "secret")
	assert.NoError(t, err, "tenant a reads back what it wrote")
	_, err = root.Get(ctx, "secret")
	assert.Equal(t, plan.CodeNotFound, plan.CodeOf(err), "nothing lands outside /a")
	fc, _ := mem.Read(ctx, &plan.ReadRequest{FilePath: "/plans/secret.md", Offset: 1, Limit: 100})
	if fc != nil {
		t.Logf("found at the unprefixed path: %q", strings.SplitN(fc.Content, "\n", 2)[0])
	}
}

// A wrapper that embeds a Backend and overrides its methods lists the plans written through
// it.
func TestEmbeddedWrapperListsItsOwnPlans(t *testing.T) {
	ctx := context.Background()
	a := storeOn(t, tenant{plan.NewMemoryBackend(), "/a"}, "")
	_, err := a.Put(ctx, plan.Update{Name: "mine", Content: ptrTo("- [ ] x\n")})
	require.NoError(t, err)
	l, err := a.List(ctx)
	require.NoError(t, err)
	assert.Len(t, l.Plans, 1, "the plan just written is listed")
}
