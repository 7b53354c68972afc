package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/internal/document"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/backends/postgres"
	redisbackend "github.com/einoplan/plan/backends/redis"
)

// openStore opens the Store on DIR, on the local disk, in Redis or in PostgreSQL. Read-only
// commands create nothing: a missing local DIR or PostgreSQL schema is an error naming it.
func (c *cli) openStore(readOnly bool) (func(), error) {
	var closeBackend func()
	pgURL, err := c.postgresURL()
	if err != nil {
		return nil, err
	}
	if pgURL != "" {
		if closeBackend, err = c.openPostgres(pgURL, readOnly); err != nil {
			return nil, err
		}
	} else if c.redisURL != "" {
		client, err := c.dialRedis()
		if err != nil {
			return nil, err
		}
		var opts []redisbackend.Option
		if c.prefix != "" {
			opts = append(opts, redisbackend.WithPrefix(c.prefix))
		}
		if c.dir == "" {
			c.dir = api.DefaultBaseDir
		}
		base := path.Clean("/" + c.dir)
		backend, err := redisbackend.New(c.ctx, client, opts...)
		if err != nil {
			client.Close()
			return nil, &cliError{msg: err.Error(), exit: exitFailed}
		}
		server := c.redisAddr(client)
		if c.prefix != "" {
			server += c.t("store.prefix", c.prefix)
		}
		c.loc = location{backend: backend, baseDir: base, server: server,
			shown: server + " " + base, nested: path.Join(base, "plans")}
		closeBackend = func() { client.Close() }
	} else {
		if c.dir == "" {
			c.dir = os.Getenv("PLAN_DIR")
		}
		byDefault := c.dir == ""
		if byDefault {
			c.dir = ".plans"
		}
		if _, err := os.Stat(c.dir); readOnly && errors.Is(err, fs.ErrNotExist) {
			return nil, &cliError{exit: exitFailed, msg: c.t("store.no_dir", c.dir)}
		}
		// The folder is opened as a program opens it, plan.NewLocalBackend(PARENT) with BaseDir
		// "/FOLDER", so both find the approval key in one place, beside the folder.
		root, base := localRoot(c.dir)
		c.loc = location{baseDir: base, shown: c.dir, nested: filepath.Join(c.dir, "plans")}
		_, statErr := os.Stat(c.dir)
		key, err := c.localKey(c.dir, byDefault, !readOnly)
		if err != nil {
			return nil, err
		}
		c.loc.approvalKey = key
		local, err := plan.NewLocalBackend(root)
		if err != nil {
			return nil, &cliError{msg: c.t("store.open_local", c.dir, errors.Unwrap(err)), exit: exitFailed}
		}
		dir, fresh := c.dir, errors.Is(statErr, fs.ErrNotExist)
		c.loc.backend, closeBackend = local, func() {
			local.Close()
			if fresh {
				ignoreNewFolder(dir)
			}
			ignoreNewFolder(marksFolder(dir))
		}
	}
	store, err := plan.NewStore(&plan.StoreConfig{Backend: c.loc.backend, BaseDir: c.loc.baseDir, DefaultAuthor: "planctl", ApprovalKey: c.loc.approvalKey, AdoptLegacyKey: c.adoptKey,
		OnChange: func(_ context.Context, ch plan.Change) { c.created, c.changed = ch.Created, true }})
	if err != nil {
		closeBackend()
		return nil, &cliError{msg: c.t("store.bad_dir", c.dir, err), exit: exitUsage}
	}
	c.store = store
	return closeBackend, nil
}

// gitignore is what planctl writes into a plans folder it creates: the plans are live
// state that agents and people change through the Store, and a checkout of older files
// must not stand in for it.
const gitignore = "# Written by planctl when it made this plans folder: the plans are live state,\n" +
	"# changed through the plan Store; keep them out of version control.\n*\n"

// ignoreNewFolder writes .gitignore into dir (a plans folder this command created, or the
// Store's marks folder beside one) when dir is a folder without one.
func ignoreNewFolder(dir string) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return
	}
	f, err := os.OpenFile(filepath.Join(dir, ".gitignore"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return
	}
	_, _ = f.WriteString(gitignore)
	_ = f.Close()
}

// marksFolder is where the Store keeps the rollback marks of the plans folder dir: beside
// it, as its key would be, so that putting the folder back does not put them back. Like the
// key, they are no file for git: a marks folder gets the same .gitignore.
func marksFolder(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	return filepath.Join(filepath.Dir(abs), "."+filepath.Base(abs)+".approval-marks")
}

// localRoot is the folder a LocalBackend for the plans folder dir opens, and dir's BaseDir
// inside it: its parent and "/<its name>", or dir itself and "/" for a file system's root.
func localRoot(dir string) (root, baseDir string) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir, "/"
	}
	parent := filepath.Dir(abs)
	if parent == abs {
		return abs, "/"
	}
	return parent, "/" + filepath.Base(abs)
}

// dialRedis connects to -redis URL and checks that the server answers.
func (c *cli) dialRedis() (*redis.Client, error) {
	opts, err := redis.ParseURL(c.redisURL)
	if err != nil {
		return nil, &cliError{msg: c.t("store.redis_url", c.redisURL, err), exit: exitUsage}
	}
	opts.ContextTimeoutEnabled = true
	redis.SetLogger(quietLogger{}) // failures reach people once, as planctl's own message
	client := redis.NewClient(opts)
	ctx, cancel := context.WithTimeout(c.ctx, 5*time.Second)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		client.Close()
		return nil, &cliError{msg: c.t("store.redis_reach", opts.Addr, err), exit: exitFailed}
	}
	return client, nil
}

func (c *cli) redisAddr(client *redis.Client) string {
	return "redis://" + client.Options().Addr + "/" + fmt.Sprint(client.Options().DB)
}

// nestedPlans counts the plans in the "plans" sub-folder of DIR, where a program using
// plan.NewLocalBackend(DIR) keeps them, for a DIR that holds none itself.
func (c *cli) nestedPlans() (*plan.Listing, bool) {
	sub, err := plan.NewStore(&plan.StoreConfig{Backend: c.loc.backend, BaseDir: path.Join(c.loc.baseDir, "plans")})
	if err != nil {
		return nil, false
	}
	listing, err := sub.ListPage(c.ctx, plan.ListOptions{})
	if err != nil || len(listing.Plans)+len(listing.Warnings) == 0 {
		return nil, false
	}
	return listing, true
}

// wrongDir is the error for a DIR that holds no plans while its plans sub-folder does.
func (c *cli) wrongDir(listing *plan.Listing) error {
	n := len(listing.Plans) + len(listing.Warnings)
	return &cliError{exit: exitFailed, msg: c.t("store.wrong_dir", c.loc.shown, c.l.plansCount(n), c.loc.nested)}
}

// checkArgs refuses a bad NAME or an empty STATUS before anything is opened.
func (c *cli) checkArgs() error {
	if len(c.args) == 0 || c.command == "list" || c.command == "watch" {
		return nil
	}
	name := c.args[0]
	if document.ValidateName(name) != nil {
		return &cliError{code: plan.CodeInvalidArgument, exit: exitFailed, msg: c.t("store.bad_name", strconv.Quote(name))}
	}
	if c.command == "status" && strings.TrimSpace(c.args[1]) == "" {
		return &cliError{code: plan.CodeInvalidArgument, exit: exitUsage, msg: c.t("store.empty_status")}
	}
	return nil
}

// quietLogger drops go-redis's own log lines.
type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

// postgresURL is -postgres, else $PLAN_POSTGRES unless -redis was given; "" for none. Both
// -postgres and -redis is a usage error.
func (c *cli) postgresURL() (string, error) {
	if !c.set["postgres"] {
		if c.set["redis"] {
			return "", nil
		}
		return os.Getenv("PLAN_POSTGRES"), nil
	}
	if c.set["redis"] {
		return "", &cliError{msg: c.t("store.two_places"), exit: exitUsage}
	}
	return c.postgres, nil
}

// openPostgres opens the PostgreSQL backend on url (schema $PLAN_POSTGRES_SCHEMA, else the
// backend's own), checking that the server answers, and sets c.loc. For a read-only command
// it creates nothing: a missing schema is an error naming it.
func (c *cli) openPostgres(url string, readOnly bool) (func(), error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, &cliError{msg: c.t("store.postgres_url", url, err), exit: exitUsage}
	}
	cfg.MaxConns = 4
	where := fmt.Sprintf("postgres://%s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
	ctx, cancel := context.WithTimeout(c.ctx, 10*time.Second)
	defer cancel()
	pool, err := pgxpool.NewWithConfig(c.ctx, cfg)
	if err == nil {
		err = pool.Ping(ctx)
		if err != nil {
			pool.Close()
		}
	}
	if err != nil {
		return nil, &cliError{msg: c.t("store.postgres_reach", where, err), exit: exitFailed}
	}
	var opts []postgres.Option
	schema, from := os.Getenv("PLAN_POSTGRES_SCHEMA"), "$PLAN_POSTGRES_SCHEMA"
	if schema == "" {
		schema, from = postgres.DefaultSchema, c.t("store.schema_unset")
	}
	opts = append(opts, postgres.WithSchema(schema))
	if readOnly {
		opts = append(opts, postgres.WithExistingSchema())
	}
	where += c.t("store.schema", schema)
	backend, err := postgres.New(ctx, pool, opts...)
	if errors.Is(err, postgres.ErrNoSchema) {
		pool.Close()
		return nil, &cliError{exit: exitFailed, msg: c.t("store.no_schema", where, from)}
	}
	if err != nil {
		pool.Close()
		return nil, &cliError{msg: err.Error(), exit: exitFailed}
	}
	if c.dir == "" {
		c.dir = api.DefaultBaseDir
	}
	base := path.Clean("/" + c.dir)
	c.loc = location{backend: backend, baseDir: base, server: where, shown: where + " " + base, nested: path.Join(base, "plans")}
	return pool.Close, nil
}
