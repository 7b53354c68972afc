package postgres

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/backends/backendtest"
)

// forger returns a connection as a role of its own that may connect and nothing more: no
// privilege on any schema or table. NOTIFY needs none.
func forger(t *testing.T) *pgx.Conn {
	t.Helper()
	requireServer(t)
	admin := newPool(t, serverURL, 1)
	role := "forger_" + strings.ToLower(testSchema())
	if _, err := admin.Exec(bg, "CREATE ROLE "+pgx.Identifier{role}.Sanitize()+" LOGIN"); err != nil {
		t.Skipf("cannot create a role on this server: %v", err)
	}
	cfg, err := pgx.ParseConfig(serverURL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.User = role
	conn, err := pgx.ConnectConfig(bg, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		closeConn(conn)
		_, _ = admin.Exec(bg, "DROP ROLE IF EXISTS "+pgx.Identifier{role}.Sanitize())
	})
	return conn
}

// planRow is a plan file's row: its folder, its version and its content.
func planRow(t *testing.T, b *Backend, name string) (dir string, version int64, content string) {
	t.Helper()
	err := b.pool.QueryRow(bg, `SELECT dir, version, convert_from(content, 'UTF8') FROM `+pgx.Identifier{b.Schema()}.Sanitize()+
		`.files WHERE name = $1`, name+".md").Scan(&dir, &version, &content)
	if err != nil {
		t.Fatal(err)
	}
	return dir, version, content
}

// forge sends payload on the channel of dir as the forger's connection.
func forge(t *testing.T, conn *pgx.Conn, b *Backend, dir, payload string) {
	t.Helper()
	if _, err := conn.Exec(bg, `SELECT pg_notify($1, $2)`, channelFor(b.Schema(), dir), payload); err != nil {
		t.Fatal(err)
	}
}

// watchedStore is a Store on b that watches plan "ship", written by a Store on another pool.
func watchedStore(t *testing.T, b *Backend) (writing *plan.Store, changes <-chan plan.Change) {
	t.Helper()
	return backendtest.WatchedPlan(t, b, mustNew(t, newPool(t, serverURL, 0), WithSchema(b.Schema())))
}

func TestAForgedNotificationRaisesNoRevisionAndTheRealChangesAllArrive(t *testing.T) {
	b := newBackend(t)
	writing, changes := watchedStore(t, b)
	dir, version, content := planRow(t, b, "ship")
	fake := backendtest.ForgedRevision(t, content)
	conn := forger(t)
	w := func(v int64, body string) string {
		return fmt.Sprintf("w %d %d ship.md%s", v, len("ship.md"), base64.StdEncoding.EncodeToString([]byte(body)))
	}
	for _, payload := range []string{
		w(version, fake),           // the row's version, other content
		w(version+1_000_000, fake), // a version the row never had
		w(version-1, fake),         // a version the row has moved past
		fmt.Sprintf("W %d %d ship.md", version+1_000_000, len("ship.md")),
	} {
		forge(t, conn, b, dir, payload)
	}
	backendtest.WantRealWritesOnly(t, writing, changes)
}

func TestAForgedDeleteOfAnExistingPlanDeliversNoDelete(t *testing.T) {
	b := newBackend(t)
	writing, changes := watchedStore(t, b)
	dir, version, _ := planRow(t, b, "ship")
	conn := forger(t)
	for _, v := range []int64{version, version + 1_000_000, version - 1} {
		forge(t, conn, b, dir, fmt.Sprintf("d %d %d ship.md", v, len("ship.md")))
	}
	backendtest.WantNoForgedDelete(t, writing, changes)
	if _, err := writing.Get(bg, "ship"); err != nil {
		t.Fatal(err)
	}
}
