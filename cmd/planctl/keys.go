package main

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The approval key of a local plans folder. A Store left to itself keeps it beside the
// folder, where a program on that folder (plan.NewLocalBackend(ROOT), plans in ROOT/plans,
// the key at ROOT/.plans.approval-key) finds it too: planctl -dir ROOT/plans shares it. But
// beside planctl's default folder, ./.plans, it would sit in the project itself, where `git
// add -A` takes it. So planctl keeps a key of its own in the user's config folder, one per
// plans folder (keyDir), handed to the Store (StoreConfig.ApprovalKey):
//
//   - planctl's own key for the folder, when there is one, is used, whatever else there is:
//     a key beside the folder made afterwards (by a program, or planted) does not change
//     what planctl reads as approved, and planctl says the two differ;
//   - else a key beside the folder is used where it is, as the programs on the folder use
//     it; beside the default folder it was made by an earlier planctl, which planctl says,
//     with how to move it;
//   - else a key inside the folder, where 0.1.0 kept it, is left to `planctl check` and
//     `planctl migrate`;
//   - else a command that may write makes planctl's own key for the default folder, and
//     says where; for a folder named with -dir or $PLAN_DIR, shared with programs, the
//     Store makes the key beside it on the first approval, as those programs do.

// keyFileName names planctl's own key file in a folder of keyDir.
const keyFileName = "approval-key"

// keyDir is the folder of planctl's key for the plans folder dir: under the user's config
// folder, named by a hash of dir's absolute path, its links resolved so every way of
// naming the folder finds one key.
func keyDir(dir string) (string, error) {
	conf, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	} else if parent, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(parent, filepath.Base(abs))
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(conf, "planctl", "keys", hex.EncodeToString(sum[:16])), nil
}

// readKeyFile is the key a key file holds: hex, at least 32 bytes, as the Store writes
// its own. A missing file is (nil, nil); a file that holds no key is an error.
func readKeyFile(p string) ([]byte, error) {
	raw, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(raw)))
	if err != nil || len(key) < 32 {
		return nil, errNoKey
	}
	return key, nil
}

// errNoKey is readKeyFile's error for a file that holds no key; the caller names the file.
var errNoKey = errors.New("no key")

// writeKeyFile makes a new key at p, readable by this user only, unless another planctl
// made one first: either way it returns the key p holds.
func writeKeyFile(p string) ([]byte, error) {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, err
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".new-key-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(hex.EncodeToString(key) + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	// A link never replaces: of two planctl making the key at once, one key wins for both.
	if err := os.Link(tmp.Name(), p); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	return readKeyFile(p)
}

// besideKeyPath is where a Store with no key given keeps the key of the plans folder dir:
// beside it, as <parent>/.<name>.approval-key.
func besideKeyPath(dir string) string {
	root, base := localRoot(dir)
	if base == "/" {
		return filepath.Join(root, ".approval-key") // a file system's root: the Store's own choice
	}
	return filepath.Join(root, "."+strings.TrimPrefix(base, "/")+".approval-key")
}

// localKey is the key planctl hands the Store of the local plans folder dir, or nil to let
// the Store find or make its own beside the folder. byDefault says dir is planctl's default
// folder (no -dir, no $PLAN_DIR); create, that the command may write. Notes go to standard
// error.
func (c *cli) localKey(dir string, byDefault, create bool) ([]byte, error) {
	beside := besideKeyPath(dir)
	kd, err := keyDir(dir)
	if err != nil {
		if byDefault && create {
			c.sayErr("key.no_config", err, dir, beside)
		}
		return nil, nil
	}
	own := filepath.Join(kd, keyFileName)
	key, err := readKeyFile(own)
	if errors.Is(err, errNoKey) {
		err = errors.New(c.t("key.not_a_key", own))
	}
	if err != nil {
		return nil, &cliError{exit: exitFailed, msg: c.t("key.unreadable", dir, err)}
	}
	other, _ := readKeyFile(beside)
	switch {
	case key != nil:
		if other != nil && string(other) != string(key) {
			c.sayErr("key.differs", beside, dir, own)
		}
		return key, nil
	case other != nil:
		if byDefault {
			c.sayErr("key.in_project", dir, beside, kd, own)
		}
		return nil, nil
	case !create || !byDefault:
		return nil, nil
	}
	if legacy, _ := readKeyFile(filepath.Join(dir, ".approval-key")); legacy != nil {
		return nil, nil // 0.1.0's key: check and migrate see to it
	}
	if key, err = writeKeyFile(own); errors.Is(err, errNoKey) {
		err = errors.New(c.t("key.not_a_key", own))
	}
	if err != nil {
		return nil, &cliError{exit: exitFailed, msg: c.t("key.make", dir, own, err)}
	}
	c.sayErr("key.made", dir, own)
	return key, nil
}
