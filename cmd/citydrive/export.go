package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"citydrive/cmd/citydrive/internal/host"
	"citydrive/netsync/cluster"
	"citydrive/voxel/backup"
	"citydrive/voxel/gen"
	"citydrive/voxel/store"
)

const exportAbout = `Writes a backup of a world's edits to FILE (.cde): every edited chunk
with its edits, under a header with the seed, the generator version, the
counts and a SHA-256. It is one consistent snapshot, also while a server
runs: that server, which holds the store's lock, sends it from one read
transaction (socket worlds/<seed>/export.sock); a stopped world is read
directly; with -cluster, the bucket as it stood at one revision. FILE is
replaced only by a complete backup, read back and checked.
Restore it with citydrive import.`

const importAbout = `Restores a backup made by citydrive export into an empty world: the
data directory's worlds/<seed>/ with no edits and no server running on it
(one transaction), or with -cluster a bucket with no edited chunk. It
refuses a backup of another -seed, of a generator version this binary does
not take, and a damaged or truncated one, before writing anything.`

// backupFlags are the flags export and import share: where the world is.
type backupFlags struct {
	fs      *cmdFlags
	data    *string
	seed    *uint64
	cluster *string
	timeout *time.Duration
	auth    natsAuthFlags
	urls    []string
}

func addBackupFlags(fs *cmdFlags) *backupFlags {
	defDir, _ := store.DefaultDir()
	return &backupFlags{
		fs:      fs,
		data:    fs.String("data", defDir, "data `directory` of the world, as the server's -data (its edits are in worlds/<seed>/)"),
		seed:    fs.Uint64("seed", defaultSeed, "world seed: which world of the data directory, or of the cluster"),
		cluster: fs.String("cluster", "", "the world's edits are in the cluster's JetStream bucket, not -data: `nats://host:port[,…]`, as the servers' -cluster"),
		timeout: fs.Duration("timeout", 10*time.Minute, "give up after this long"),
		auth:    addNATSAuthFlags(fs),
	}
}

// check validates the shared flags once parsed.
func (b *backupFlags) check() error {
	urls, err := parseNATS(*b.cluster)
	if err != nil {
		return err
	}
	b.urls = urls
	if err := b.auth.check(urls); err != nil {
		return err
	}
	switch {
	case len(urls) > 0 && b.fs.isSet("data"):
		return usageError{errors.New("give -data or -cluster, not both: a cluster's edits are not in a data directory")}
	case len(urls) == 0 && *b.data == "":
		return fmt.Errorf("-data is required: no default data directory could be found (set $HOME or $XDG_DATA_HOME)")
	case *b.timeout <= 0:
		return fmt.Errorf("-timeout must be positive, got %v", *b.timeout)
	}
	return nil
}

// context is the command's: its -timeout, and SIGINT or SIGTERM.
func (b *backupFlags) context() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithTimeout(ctx, *b.timeout)
	return ctx, func() { cancel(); stop() }
}

func (b *backupFlags) worldDir() string { return host.WorldDir(*b.data, *b.seed) }

// runExport is `citydrive export`.
func runExport(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("export", stdout, "export [flags] -o FILE", exportAbout)
	bf := addBackupFlags(fs)
	out := fs.String("o", "", "backup `file` to write (.cde); an existing one is replaced once the new one is complete")
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := bf.check(); err != nil {
		return err
	}
	if err := checkOutputFile("o", *out); err != nil {
		return err
	}
	if err := ready(); err != nil {
		return err
	}
	ctx, cancel := bf.context()
	defer cancel()
	start := time.Now()
	f, err := os.CreateTemp(filepath.Dir(*out), "."+filepath.Base(*out)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		f.Close()
		os.Remove(f.Name()) // gone already once renamed
	}()
	from, err := bf.export(ctx, f)
	if err != nil {
		return err
	}
	// Read back what is on disk: a server stopped mid-way leaves a
	// truncated stream, and a disk may fail a write silently until read.
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	h, err := backup.Verify(bufio.NewReaderSize(f, 1<<16))
	switch {
	case err != nil:
		return fmt.Errorf("the backup read back from %s is not whole (%w); nothing was written to %s: export again", from, err, *out)
	case h.Seed != *bf.seed:
		return fmt.Errorf("%s is the world of seed %d, not -seed %d", from, h.Seed, *bf.seed)
	}
	if err := errors.Join(f.Sync(), f.Close()); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), *out); err != nil {
		return err
	}
	if err := syncDir(filepath.Dir(*out)); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "exported from %s: seed %d, generator %d, %d chunks, %d edits, %d bytes, in %v\nto %s\n",
		from, h.Seed, h.Generator, h.Chunks, h.Edits, backup.HeaderSize+h.BodySize, time.Since(start).Round(time.Millisecond), *out)
	return nil
}

// export writes the backup to w and says where it came from.
func (b *backupFlags) export(ctx context.Context, w io.Writer) (from string, err error) {
	if len(b.urls) > 0 {
		chunks, rev, err := cluster.Export(ctx, b.auth.options(cluster.Options{URLs: b.urls, Seed: *b.seed}))
		if err != nil {
			return "", clusterHint(err)
		}
		_, err = backup.Encode(w, *b.seed, gen.Version, func(yield func(backup.Chunk) error) error {
			for _, c := range chunks {
				if err := yield(c); err != nil {
					return err
				}
			}
			return nil
		})
		return fmt.Sprintf("the cluster's bucket citydrive-%d at revision %d", *b.seed, rev), err
	}
	dir := b.worldDir()
	s, err := store.OpenReadOnly(dir)
	switch {
	case err == nil:
		defer s.Close()
		seed, _, err := s.World()
		if err != nil {
			return "", err
		}
		if seed != *b.seed {
			return "", fmt.Errorf("%s holds the world of seed %d, not %d: it was moved or renamed", dir, seed, *b.seed)
		}
		_, err = s.Export(w)
		return dir + " (no server running)", err
	case errors.Is(err, store.ErrNoWorld):
		return "", fmt.Errorf("no world of seed %d in %s: %s/%s does not exist (wrong -data or -seed?)", *b.seed, *b.data, dir, "edits.db")
	case !errors.Is(err, store.ErrInUse):
		return "", err
	}
	// A server holds the lock: it makes the snapshot.
	err = store.FetchExport(ctx, dir, w)
	if errors.Is(err, store.ErrNoExporter) {
		return "", fmt.Errorf("a citydrive is running on %s but serves no exports on %s (a version from before export, or it could not make the socket: see its log): stop it, then export again",
			*b.data, filepath.Join(dir, store.SocketName))
	}
	return "the server running on " + dir, err
}

// runImport is `citydrive import`.
func runImport(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("import", stdout, "import [flags] -i FILE", importAbout)
	bf := addBackupFlags(fs)
	in := fs.String("i", "", "backup `file` to restore (.cde, from citydrive export)")
	replicas := fs.Int("replicas", 3, "with -cluster: replicas of the edit bucket if import makes it (as citydrive server -replicas)")
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := bf.check(); err != nil {
		return err
	}
	switch st, err := os.Stat(*in); {
	case *in == "":
		return usageError{errors.New("-i is required: the backup file to restore")}
	case err != nil:
		return fmt.Errorf("-i %s: %w", *in, err)
	case !st.Mode().IsRegular():
		return fmt.Errorf("-i %s: not a file", *in)
	}
	if *replicas < 1 || *replicas > 5 {
		return fmt.Errorf("-replicas must be in 1..5 (JetStream's limit), got %d", *replicas)
	}
	if err := ready(); err != nil {
		return err
	}
	ctx, cancel := bf.context()
	defer cancel()
	start := time.Now()
	f, err := os.Open(*in)
	if err != nil {
		return err
	}
	defer f.Close()
	// The header first: a backup of another world is refused at once,
	// then the whole file is checked before anything is written.
	r, err := backup.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", *in, err)
	}
	h := r.Header()
	if err := checkBackupWorld(*in, h, *bf.seed); err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := backup.Verify(f); err != nil {
		return fmt.Errorf("%s: %w; nothing was restored: use another copy", *in, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if r, err = backup.NewReader(f); err != nil {
		return fmt.Errorf("%s: %w", *in, err)
	}
	to, err := bf.restore(ctx, r, *replicas)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "imported %s: seed %d, generator %d, %d chunks, %d edits, in %v\ninto %s\n",
		*in, h.Seed, h.Generator, h.Chunks, h.Edits, time.Since(start).Round(time.Millisecond), to)
	return nil
}

// checkBackupWorld refuses a backup the world named on the command line
// cannot take: another seed, or edits of a generator this binary's terrain
// differs from.
func checkBackupWorld(name string, h backup.Header, seed uint64) error {
	switch {
	case h.Seed != seed:
		return fmt.Errorf("%s holds the world of seed %d, not -seed %d: give -seed %d to restore it as that world", name, h.Seed, seed, h.Seed)
	case h.Generator != gen.Version && !slices.Contains(gen.Compatible, h.Generator):
		return fmt.Errorf("%s holds edits of generator version %d; this citydrive runs version %d (and takes %v), whose terrain they would not fit: import it with the release that exported it (citydrive version says a binary's)",
			name, h.Generator, gen.Version, gen.Compatible)
	}
	return nil
}

// restore writes r into the world and says where.
func (b *backupFlags) restore(ctx context.Context, r *backup.Reader, replicas int) (string, error) {
	if len(b.urls) > 0 {
		_, err := cluster.Import(ctx, b.auth.options(cluster.Options{URLs: b.urls, Seed: *b.seed, Replicas: replicas}), r)
		err = clusterHint(err)
		if errors.Is(err, cluster.ErrNotEmpty) {
			return "", fmt.Errorf("%w: import restores only into an empty world: delete the bucket (servers stopped), or restore as another -seed", err)
		}
		return "the cluster's bucket citydrive-" + fmt.Sprint(*b.seed), err
	}
	dir := b.worldDir()
	made := missingDirs(dir)
	_, statErr := os.Stat(filepath.Join(dir, "edits.db"))
	fresh := errors.Is(statErr, os.ErrNotExist)
	// undo leaves the data directory as it was: no empty world behind.
	undo := func() {
		if fresh {
			_ = os.Remove(filepath.Join(dir, "edits.db"))
		}
		for _, d := range made {
			_ = os.Remove(d) // only if empty
		}
	}
	s, err := store.Open(dir, *b.seed, gen.Version, gen.Compatible...)
	if err != nil {
		undo()
		return "", alreadyRunning(err, *b.data)
	}
	err = errors.Join(s.Restore(r), s.Close())
	if err == nil {
		return dir, nil
	}
	undo()
	if errors.Is(err, store.ErrNotEmpty) {
		return "", fmt.Errorf("%w: import restores only into an empty world: move %s away (stop the server first), or choose another -data", err, dir)
	}
	return "", err
}

// missingDirs lists dir and those of its parents that do not exist yet,
// deepest first (what creating dir would make).
func missingDirs(dir string) []string {
	var out []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || filepath.Dir(d) == d {
			return out
		}
		out = append(out, d)
	}
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}
