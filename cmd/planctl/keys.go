package main

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
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
		return nil, fmt.Errorf("%s holds no approval key", p)
	}
	return key, nil
}

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
// folder (no -dir, no $PLAN_DIR); create, that the command may write. Notes go to warn.
func localKey(dir string, byDefault, create bool, warn func(string)) ([]byte, error) {
	beside := besideKeyPath(dir)
	kd, err := keyDir(dir)
	if err != nil {
		if byDefault && create {
			warn(fmt.Sprintf("planctl: no config folder for the approval key (%v); the key of %s goes beside it, at %s: keep that file out of version control",
				err, dir, beside))
		}
		return nil, nil
	}
	own := filepath.Join(kd, keyFileName)
	key, err := readKeyFile(own)
	if err != nil {
		return nil, &cliError{exit: exitFailed, msg: fmt.Sprintf("the approval key of %s: %v; remove that file to make a new one (approvals sealed with it then read as not approved)", dir, err)}
	}
	other, _ := readKeyFile(beside)
	switch {
	case key != nil:
		if other != nil && string(other) != string(key) {
			warn(fmt.Sprintf("planctl: %s holds another approval key than planctl's for %s (%s); planctl ignores it, so a program that uses it and planctl read each other's approvals as not approved: give the program planctl's key (StoreConfig.ApprovalKey), or remove %s to use the one beside the folder",
				beside, dir, own, own))
		}
		return key, nil
	case other != nil:
		if byDefault {
			warn(fmt.Sprintf("planctl: the approval key of %s is at %s, in the project, where an earlier planctl made it; planctl still uses it: keep it out of version control, or move it out of the project with `mkdir -p %s && mv %s %s`",
				dir, beside, kd, beside, own))
		}
		return nil, nil
	case !create || !byDefault:
		return nil, nil
	}
	if legacy, _ := readKeyFile(filepath.Join(dir, ".approval-key")); legacy != nil {
		return nil, nil // 0.1.0's key: check and migrate see to it
	}
	if key, err = writeKeyFile(own); err != nil {
		return nil, &cliError{exit: exitFailed, msg: fmt.Sprintf("cannot make the approval key of %s at %s: %v", dir, own, err)}
	}
	warn(fmt.Sprintf("planctl: made the approval key of %s at %s, outside the project; a program that shares this folder needs it (StoreConfig.ApprovalKey)", dir, own))
	return key, nil
}
