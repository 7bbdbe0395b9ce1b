package replay

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"time"
)

// Keep is how many of the drives' replays a data directory keeps.
const Keep = 20

// Ext is a replay file's extension.
const Ext = ".replay"

// DirIn is where the replays of a data directory are kept.
func DirIn(data string) string { return filepath.Join(data, "replays") }

// kept names the files Save writes (and so may remove): a time to the
// millisecond, then the seed.
var kept = regexp.MustCompile(`^\d{8}-\d{6}\.\d{3}-seed-\d+\` + Ext + `$`)

// Name is the file a drive begun at t on seed is saved as: names sort by
// time.
func Name(t time.Time, seed uint64) string {
	return fmt.Sprintf("%s-seed-%d%s", t.UTC().Format("20060102-150405.000"), seed, Ext)
}

// WriteFile writes data to path whole or not at all (a temporary file
// renamed), so a crash never leaves half a replay.
func WriteFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".replay-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(0o644) // CreateTemp's 0600 is for secrets
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}

// Save writes a drive's replay into dir (made when missing) under name
// and removes the oldest of the replays Save wrote there, keeping keep.
// It returns the file's path.
func Save(dir, name string, data []byte, keep int) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, name)
	if err := WriteFile(path, data); err != nil {
		return "", err
	}
	names, err := List(dir)
	if err != nil {
		return path, err
	}
	for _, old := range names[min(len(names), keep):] {
		if err := os.Remove(filepath.Join(dir, old)); err != nil && !os.IsNotExist(err) {
			return path, err
		}
	}
	return path, nil
}

// List is the names of the replays Save wrote in dir, newest first (none
// when dir is missing).
func List(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if e.Type().IsRegular() && kept.MatchString(e.Name()) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	slices.Reverse(names)
	return names, nil
}
