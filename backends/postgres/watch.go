package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"

	"github.com/einoplan/plan/driver"
)

// watchPing is how long a feed waits for a notification before it checks its connection,
// and how long that check or a content fetch may take.
const watchPing = 5 * time.Second

// WatchFiles returns a feed of every write and delete of a file directly inside dir, made by
// any process on the same database and schema, through LISTEN/NOTIFY on a connection of the
// feed's own (made from the pool's connection settings, or WithListenConfig's, outside the
// pool). A trigger on the
// files table queues the notification in the same transaction as the change, and
// PostgreSQL delivers notifications in commit order, so a change is announced exactly when
// it commits and events for one file arrive in the order the writes landed. A notification
// is only a hint (any role that can connect may send one): the feed reads the row back and
// delivers what the table confirms, a write still at the version named, with the content
// the notification carried (small files) or read from the row (larger ones), or a delete of
// a row that is gone. When the version named has already been replaced (the feed fell
// behind a later write), the feed sends a Resync in its place; a notification the table
// contradicts is dropped.
// When the connection is lost (a terminated session, a server restart, no answer to a
// check within watchPing) the feed connects and listens again, backing off while the server
// is away, then sends one FileEvent with Resync set. When the receiver falls driver.FeedBuffer
// events behind, it also gets a Resync instead of the dropped events. Every change that
// commits after WatchFiles returns is delivered or covered by a Resync. The channel is
// closed when ctx ends.
func (b *Backend) WatchFiles(ctx context.Context, dir string) (<-chan driver.FileEvent, error) {
	d := cleanPath(dir)
	if !validText(d) {
		return nil, wrapErr("watch", d, errors.New("the folder name cannot be stored"))
	}
	ch := channelFor(b.schema, d)
	conn, err := b.listen(ctx, ch)
	if err != nil {
		return nil, wrapErr("watch", d, err)
	}
	return driver.Feed(ctx, &feed{b: b, dir: d, channel: ch, conn: conn}), nil
}

// listen opens a connection that listens on ch. Its context handling only sets socket
// deadlines (never sends a cancel request), so a wait that times out leaves it usable.
func (b *Backend) listen(ctx context.Context, ch string) (*pgx.Conn, error) {
	base := b.listenConfig
	if base == nil {
		base = b.pool.Config().ConnConfig
	}
	cfg := base.Copy()
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.DeadlineContextWatcherHandler{Conn: c.Conn()}
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{ch}.Sanitize()); err != nil {
		closeConn(conn)
		return nil, err
	}
	return conn, nil
}

// feed is the driver.Listener of one WatchFiles: the folder, its channel and the listening
// connection (nil once closed).
type feed struct {
	b       *Backend
	dir     string
	channel string
	conn    *pgx.Conn
}

// Receive turns the next notification into the event the table confirms (see event); a
// connection that does not answer a check, or cannot read the row back, is lost.
func (f *feed) Receive(ctx context.Context) (driver.FileEvent, bool, error) {
	wait, cancel := context.WithTimeout(ctx, watchPing)
	n, err := f.conn.WaitForNotification(wait)
	cancel()
	switch {
	case err == nil:
		return f.event(ctx, n.PID, n.Payload)
	case pgconn.Timeout(err) && ctx.Err() == nil:
		check, cancel := context.WithTimeout(ctx, watchPing)
		defer cancel()
		return driver.FileEvent{}, false, f.conn.Ping(check)
	default:
		return driver.FileEvent{}, false, err
	}
}

// Listen connects and listens again.
func (f *feed) Listen(ctx context.Context) error {
	conn, err := f.b.listen(ctx, f.channel)
	if err == nil {
		f.conn = conn
	}
	return err
}

// Close closes the listening connection.
func (f *feed) Close() {
	closeConn(f.conn)
	f.conn = nil
}

// event turns a notification into the event to deliver, after reading its row back: any
// role that can connect may NOTIFY on the channel, so a notification is only a hint, and
// the table decides.
//   - Confirmed: a write whose row is still at the version named, with the content the
//     notification carried (or, for a large one, with the row's content read now); a delete
//     of a row that is gone. It is delivered.
//   - Contradicted: a version the row never had (past the row's), other content at the
//     row's version, a delete of the row at its current version or a later one. Skipped, as
//     is a malformed payload: ok is false.
//   - Past: the row moved on (a later version, a delete, a write after a delete). The
//     notification is delivered as it came when its sender is a live session whose role
//     may write the table (such a role could have written anything anyway), and a large
//     write comes back as a Resync; from any other sender the feed sends a Resync, since
//     the table no longer shows what happened.
//
// An error means the row could not be read: the connection is to be replaced.
func (f *feed) event(ctx context.Context, sender uint32, payload string) (ev driver.FileEvent, ok bool, err error) {
	n, ok := parseNotification(payload)
	if !ok {
		return ev, false, nil
	}
	var carried []byte // the SHA-256 of the content the notification carried, if any
	if !n.deleted && !n.fetch {
		sum := sha256.Sum256([]byte(n.content))
		carried = sum[:]
	}
	read, cancel := context.WithTimeout(ctx, watchPing)
	defer cancel()
	var version *int64
	var same *bool
	var content []byte
	var writer bool
	table := pgx.Identifier{f.b.schema, "files"}.Sanitize()
	err = f.conn.QueryRow(read, f.b.sql.readBack, f.dir, n.name, carried, n.fetch, int64(sender), table).
		Scan(&version, &same, &content, &writer)
	if err != nil {
		return ev, false, err
	}
	ev = driver.FileEvent{Path: joinPath(f.dir, n.name), Deleted: n.deleted, Content: n.content}
	gone := version == nil
	switch {
	case n.deleted && gone: // confirmed
		return ev, true, nil
	case !gone && *version == n.version && !n.deleted: // the version named
		if n.fetch {
			ev.Content = string(content)
			return ev, true, nil
		}
		return ev, *same, nil
	case !gone && *version <= n.version: // contradicted
		return ev, false, nil
	case writer && !n.fetch: // past, from a session that may write
		return ev, true, nil
	default: // past
		return driver.FileEvent{Resync: true}, true, nil
	}
}

// notification is a decoded payload of the files trigger:
// "w <version> <len(name)> <name><base64 content>" for a write whose content fits,
// "W <version> <len(name)> <name>" for a write whose content is to be read back, and
// "d <version> <len(name)> <name>" for a delete.
type notification struct {
	name    string
	version int64
	content string
	deleted bool
	fetch   bool
}

func parseNotification(payload string) (notification, bool) {
	var n notification
	if len(payload) < 2 || payload[1] != ' ' {
		return n, false
	}
	op := payload[0]
	rest := payload[2:]
	ver, rest, ok1 := strings.Cut(rest, " ")
	size, rest, ok2 := strings.Cut(rest, " ")
	v, err1 := strconv.ParseInt(ver, 10, 64)
	l, err2 := strconv.Atoi(size)
	if !ok1 || !ok2 || err1 != nil || err2 != nil || l <= 0 || l > len(rest) {
		return n, false
	}
	n.name, n.version = rest[:l], v
	switch op {
	case 'd':
		n.deleted = true
	case 'W':
		n.fetch = true
	case 'w':
		content, err := base64.StdEncoding.DecodeString(rest[l:])
		if err != nil {
			return n, false
		}
		n.content = string(content)
	default:
		return n, false
	}
	return n, true
}

// closeConn closes a connection, giving the server a moment to hear it.
func closeConn(c *pgx.Conn) {
	if c == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	c.Close(ctx)
}
