package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"

	"citydrive/roadgraph/world"
)

// defaultSeed is every command's -seed default, so that a server, its
// players, the bots and the tools agree on the world out of the box.
const defaultSeed = 412

// cmdFlags is one subcommand's flag set with the conventions all share:
// -h prints what the command does and its flags to stdout; a bad flag is
// returned as a usageError (run prints it with one line pointing at -h,
// not the whole usage); renamed flags live on as hidden aliases.
type cmdFlags struct {
	*flag.FlagSet
	stdout io.Writer
	usage  string // the synopsis, "citydrive shot [flags]"
	about  string // what the command does: the help's first paragraph
	after  string // printed after the flags (play's key list)
	hidden map[string]bool
}

// newFlags makes the flag set of command name ("shot"); usage is its
// synopsis after "citydrive ", about its description.
func newFlags(name string, stdout io.Writer, usage, about string) *cmdFlags {
	fs := flag.NewFlagSet("citydrive "+name, flag.ContinueOnError)
	// The flag package would print errors and the whole usage to its
	// output; parse reports them instead.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &cmdFlags{FlagSet: fs, stdout: stdout, usage: "citydrive " + usage, about: about, hidden: map[string]bool{}}
}

// alias keeps old, a flag's earlier name, working for scripts and old
// command lines, without listing it in -h.
func (f *cmdFlags) alias(old, name string) {
	fl := f.Lookup(name)
	if fl == nil {
		panic("citydrive: alias of undefined flag -" + name)
	}
	f.Var(fl.Value, old, "old name of -"+name)
	f.hidden[old] = true
}

// usageError is a command line the flag set could not take: run prints
// it with a pointer to the command's -h.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }

// parse parses args, which must hold flags only.
func (f *cmdFlags) parse(args []string) error {
	rest, err := f.parseArgs(args, 0)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageError{fmt.Errorf("unexpected arguments: %q", rest)}
	}
	return nil
}

// parseArgs parses args and returns the positional arguments, at most
// max of them.
func (f *cmdFlags) parseArgs(args []string, max int) ([]string, error) {
	if err := f.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			f.printHelp(f.stdout)
			return nil, flag.ErrHelp
		}
		return nil, usageError{err}
	}
	if f.NArg() > max {
		return nil, usageError{fmt.Errorf("unexpected arguments: %q", f.Args()[max:])}
	}
	return f.Args(), nil
}

// printHelp is -h: synopsis, description, flags (aliases left out).
func (f *cmdFlags) printHelp(w io.Writer) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n", f.usage, strings.TrimSpace(f.about))
	if f.after != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(f.after))
	}
	shown := flag.NewFlagSet("", flag.ContinueOnError)
	f.VisitAll(func(fl *flag.Flag) {
		if !f.hidden[fl.Name] {
			shown.Var(fl.Value, fl.Name, fl.Usage)
			shown.Lookup(fl.Name).DefValue = fl.DefValue // not what was parsed
		}
	})
	fmt.Fprintf(w, "\nflags:\n")
	shown.SetOutput(w)
	shown.PrintDefaults()
}

// isSet reports whether the command line gave flag name (or an alias of
// it: aliases share the value, so either counts).
func (f *cmdFlags) isSet(name string) bool {
	v := f.Lookup(name).Value
	set := false
	f.Visit(func(fl *flag.Flag) { set = set || fl.Value == v })
	return set
}

// ready is called by every command once its flags are checked, just
// before it starts working; tests make it stop there (the README test).
var ready = func() error { return nil }

// checkOutputFile checks, before any work, that path can be written as a
// file, so that a long drive or run does not end in "no such directory".
// It leaves nothing behind.
func checkOutputFile(flagName, path string) error {
	if path == "" {
		return fmt.Errorf("-%s must not be empty", flagName)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("-%s %s: is a directory, want a file name", flagName, path)
	}
	return checkWritableDir(flagName, path, filepath.Dir(path))
}

// checkOptionalFile is checkOutputFile for a flag that may be left empty
// (a profile): empty, there is nothing to write.
func checkOptionalFile(flagName, path string) error {
	if path == "" {
		return nil
	}
	return checkOutputFile(flagName, path)
}

// checkOutputDir checks that path is a directory that can be written, or
// one that can be made (its nearest existing parent is writable).
func checkOutputDir(flagName, path string) error {
	if path == "" {
		return fmt.Errorf("-%s must not be empty", flagName)
	}
	dir := filepath.Clean(path)
	for {
		st, err := os.Stat(dir)
		if err == nil {
			if !st.IsDir() {
				return fmt.Errorf("-%s %s: %s is not a directory", flagName, path, dir)
			}
			return checkWritableDir(flagName, path, dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return fmt.Errorf("-%s %s: %v", flagName, path, err)
		}
		dir = parent
	}
}

func checkWritableDir(flagName, path, dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("-%s %s: directory %s does not exist", flagName, path, dir)
	}
	if !st.IsDir() {
		return fmt.Errorf("-%s %s: %s is not a directory", flagName, path, dir)
	}
	f, err := os.CreateTemp(dir, ".citydrive-check-*")
	if err != nil {
		return fmt.Errorf("-%s %s: cannot write in %s", flagName, path, dir)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// pointFlag is an "x,z" world position in metres.
type pointFlag struct {
	p   world.Vec2
	set bool
}

func (f *pointFlag) String() string {
	if f == nil || !f.set {
		return ""
	}
	return fmt.Sprintf("%g,%g", f.p.X, f.p.Z)
}

// maxCoord keeps positions inside the lattice's id range with room to spare.
const maxCoord = 1e9

func (f *pointFlag) Set(s string) error {
	xs, zs, ok := strings.Cut(s, ",")
	if !ok {
		return fmt.Errorf("want x,z in metres, got %q", s)
	}
	x, err := strconv.ParseFloat(strings.TrimSpace(xs), 64)
	if err != nil {
		return fmt.Errorf("bad x in %q", s)
	}
	z, err := strconv.ParseFloat(strings.TrimSpace(zs), 64)
	if err != nil {
		return fmt.Errorf("bad z in %q", s)
	}
	if math.IsNaN(x) || math.IsNaN(z) || math.Abs(x) > maxCoord || math.Abs(z) > maxCoord {
		return fmt.Errorf("position %q out of range (|x|, |z| ≤ %g m)", s, maxCoord)
	}
	f.p, f.set = world.Vec2{X: x, Z: z}, true
	return nil
}

// startCPUProfile starts a CPU profile into path ("" : none) and returns
// what stops it.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// addTimeFlag is -time, the time of day, the one name for it in every
// command (bench and soak called it -hour: cmdFlags keep that as an alias).
func addTimeFlag(fs *flag.FlagSet, def float64, usage string) *float64 {
	return fs.Float64("time", def, usage)
}

// checkTime is -time's check, one for every command.
func checkTime(h float64) error {
	if !(h >= 0 && h < 24) {
		return fmt.Errorf("-time must be in [0, 24) hours, got %g", h)
	}
	return nil
}

// splitList splits a comma-separated flag value, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}
