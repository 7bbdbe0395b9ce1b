package main

import (
	"bufio"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/voxel/gen"
	"citydrive/voxel/store"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ from the current output")

// errDryRun is what ready returns under dryRun: the command line was
// taken, nothing was started.
var errDryRun = errors.New("dry run: the command line is good")

// dryRun makes every command stop once its flags are checked.
func dryRun(t *testing.T) error {
	old := ready
	ready = func() error { return errDryRun }
	t.Cleanup(func() { ready = old })
	return errDryRun
}

// machineDefaults replaces the defaults that depend on the machine
// (cores), so the golden help is the same everywhere.
var machineDefaults = regexp.MustCompile(`(?m)(^  -(workers|parallel) int\n[^\n]*)\(default \d+\)`)

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "go test -run %s -update writes it", t.Name())
	assert.Equal(t, string(want), got, "%s differs: go test -run %s -update, then look at the diff", path, t.Name())
}

// The help of citydrive and of every command, to stdout, as in
// testdata/*.golden.
func TestHelpGolden(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/home/player/.local/share") // -data's default
	t.Setenv("XDG_CONFIG_HOME", "/home/player/.config")    // -settings'
	for _, args := range [][]string{{"-h"}, {"help"}, {"--help"}} {
		code, stdout, stderr := runCmd(args...)
		assert.Equal(t, exitOK, code)
		assert.Empty(t, stderr, "help goes to stdout")
		golden(t, "help", stdout)
	}
	for _, c := range commands() {
		if c.run == nil {
			continue
		}
		code, stdout, stderr := runCmd(c.name, "-h")
		assert.Equal(t, exitOK, code, c.name)
		assert.Empty(t, stderr, "%s -h goes to stdout", c.name)
		assert.True(t, strings.HasPrefix(stdout, "usage: citydrive "), c.name)
		about := strings.SplitN(stdout, "\n", 4)
		require.Len(t, about, 4)
		assert.NotEmpty(t, about[2], "%s: a description follows the synopsis", c.name)
		assert.NotContains(t, stdout, "old name of", "%s: aliases are hidden", c.name)
		golden(t, "help-"+c.name, machineDefaults.ReplaceAllString(stdout, "${1}(default: per core)"))
		_, again, _ := runCmd("help", c.name)
		assert.Equal(t, stdout, again, "citydrive help %s is %s -h", c.name, c.name)
	}
}

func TestVersionGolden(t *testing.T) {
	old := readBuildInfo
	defer func() { readBuildInfo = old }()
	readBuildInfo = func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{Main: debug.Module{Path: "citydrive", Version: "v0.0.0-20261202030527-16ced7d0bc5d+dirty"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "16ced7d0bc5d173bb3888f4d2d480cfa84b80034"},
				{Key: "vcs.time", Value: "2026-12-02T03:05:27Z"}, {Key: "vcs.modified", Value: "true"}}}, true
	}
	for _, args := range [][]string{{"version"}, {"-version"}} {
		code, stdout, stderr := runCmd(args...)
		assert.Equal(t, exitOK, code, stderr)
		golden(t, "version", stdout)
	}
	readBuildInfo = func() (*debug.BuildInfo, bool) { return nil, false }
	_, stdout, _ := runCmd("version")
	assert.Contains(t, stdout, "citydrive devel\ncommit:    unknown\n", "a build without VCS stamps says so")
	assert.Contains(t, stdout, "generator: "+strconv.Itoa(int(gen.Version)))
}

// A bad flag is its error and one line pointing at the help, in the
// words the user typed.
func TestBadFlagIsOneErrorAndAPointer(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-nope"}, "citydrive: flag provided but not defined: -nope\nsee citydrive play -h\n"},
		{[]string{"play", "-nope"}, "citydrive play: flag provided but not defined: -nope\nsee citydrive play -h\n"},
		{[]string{"shot", "-size", "x"}, "citydrive shot: flag provided but not defined: -size\nsee citydrive shot -h\n"},
		{[]string{"map", "-size", "x"}, "citydrive map: invalid value \"x\" for flag -size: parse error\nsee citydrive map -h\n"},
		{[]string{"bench", "extra"}, "citydrive bench: unexpected arguments: [\"extra\"]\nsee citydrive bench -h\n"},
		{[]string{"-time", "25"}, "citydrive: -time must be in [0, 24) hours, got 25\n"},
		{[]string{"bogus"}, "citydrive: unknown command \"bogus\"\nsee citydrive -h\n"},
	} {
		code, stdout, stderr := runCmd(tc.args...)
		assert.Equal(t, exitError, code, "%v", tc.args)
		assert.Equal(t, tc.want, stderr, "%v", tc.args)
		assert.Empty(t, stdout, "%v", tc.args)
	}
}

// The old flag names still work, unlisted.
func TestOldFlagNamesAreHiddenAliases(t *testing.T) {
	dryRun(t)
	fp := strings.Repeat("ab", 32)
	for _, args := range [][]string{
		{"bench", "-hour", "8"},
		{"soak", "-hour", "17.5"},
		{"sweep", "-hours", "0,8"},
		{"map", "-at", "100,200"},
		{"bots", "-addr", "h:1", "-server-fingerprint", fp, "-metrics", "http://h:9100/metrics", "-radius", "3"},
		{"bots", "-addr", "h:1", "-server-fingerprint", fp, "-metrics-addr", "h:9100", "-terrain-radius", "3"},
	} {
		code, _, stderr := runCmd(args...)
		assert.Equal(t, exitError, code)
		assert.Contains(t, stderr, errDryRun.Error(), "%v", args)
	}
	for _, tc := range []struct{ in, want string }{
		{"h:9100", "http://h:9100/metrics"},
		{"[::1]:9100", "http://[::1]:9100/metrics"},
		{"https://h:1/m", "https://h:1/m"},
	} {
		got, err := metricsURL(tc.in)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got)
	}
	for _, bad := range []string{":9100", "h", "ftp://h:1/metrics", "http:///metrics"} {
		_, err := metricsURL(bad)
		assert.ErrorContains(t, err, "-metrics-addr", bad)
	}
}

// Output paths are checked before the work: a drive of minutes must not
// end in "no such directory".
func TestOutputPathsAreCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "such")
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"shot", "-o", filepath.Join(missing, "x.png")}, "-o " + filepath.Join(missing, "x.png") + ": directory " + missing + " does not exist"},
		{[]string{"shot", "-o", dir}, "is a directory"},
		{[]string{"map", "-o", filepath.Join(missing, "m.png")}, "does not exist"},
		{[]string{"bench", "-memprofile", filepath.Join(missing, "m.prof")}, "-memprofile"},
		{[]string{"soak", "-cpuprofile", filepath.Join(missing, "c.prof")}, "-cpuprofile"},
		{[]string{"soak", "-replays", filepath.Join(file, "r")}, "-replays " + filepath.Join(file, "r") + ": " + file + " is not a directory"},
		{[]string{"sweep", "-out", filepath.Join(dir, "file", "x")}, "-out " + filepath.Join(dir, "file", "x") + ": " + filepath.Join(dir, "file") + " is not a directory"},
	} {
		code, _, stderr := runCmd(tc.args...)
		assert.Equal(t, exitError, code, "%v", tc.args)
		assert.Contains(t, stderr, tc.want, "%v", tc.args)
	}
	assert.ErrorContains(t, checkOutputDir("out", filepath.Join(file, "sub")), "is not a directory")
	assert.NoError(t, checkOutputDir("out", filepath.Join(dir, "new", "deeper")), "made when needed")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "the checks leave nothing behind")
}

// A second citydrive on a data directory in use is "already running",
// not a damaged database.
func TestSecondInstanceIsAlreadyRunning(t *testing.T) {
	dir := t.TempDir()
	const seed = 9
	s, err := store.Open(filepath.Join(dir, "worlds", "9"), seed, gen.Version)
	require.NoError(t, err)
	defer s.Close()
	code, _, stderr := runCmd("server", "-addr", "127.0.0.1:0", "-data", dir, "-seed", "9")
	assert.Equal(t, exitError, code)
	assert.Equal(t, "citydrive server: already running: another citydrive (a game or a server) is using the data directory "+dir+
		"; quit it first, or give this one another directory with -data\n", stderr)
	assert.NotContains(t, stderr, "unreadable")
}

// Every README command line parses against the real flag sets and
// passes the commands' checks (each stops just before its work).
func TestREADMECommandLinesRun(t *testing.T) {
	dryRun(t)
	lines := readmeCommands(t, filepath.Join("..", "..", "README.md"))
	require.GreaterOrEqual(t, len(lines), 15, "the README's command lines were found")
	t.Chdir(filepath.Join("..", "..")) // the README's paths are from the repository root
	for _, l := range lines {
		args := shellWords(t, l)
		code, stdout, stderr := runCmd(args[1:]...)
		if code == exitOK { // -h, help
			assert.NotEmpty(t, stdout, l)
			continue
		}
		assert.Contains(t, stderr, errDryRun.Error(), "README: %s", l)
	}
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// readmeCommands is every line starting "citydrive " or "./citydrive "
// in a code block or code span, without its shell comment.
func readmeCommands(t *testing.T, path string) []string {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []string
	add := func(s string) {
		s = strings.TrimSpace(strings.ReplaceAll(s, `\|`, "|"))
		if strings.HasPrefix(s, "citydrive ") || strings.HasPrefix(s, "./citydrive ") || s == "citydrive" {
			if i := strings.Index(s, " #"); i >= 0 {
				s = strings.TrimSpace(s[:i])
			}
			out = append(out, s)
		}
	}
	block := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			block = !block
			continue
		}
		if block {
			add(l)
			continue
		}
		for _, m := range codeSpan.FindAllStringSubmatch(l, -1) {
			add(m[1])
		}
	}
	require.NoError(t, sc.Err())
	return out
}

// shellWords splits a command line as sh does, for the quoting the
// README uses (single and double quotes, no expansions).
func shellWords(t *testing.T, s string) []string {
	var words []string
	var cur strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			require.NotContains(t, "$`\\|&;<>*?[", string(r), "%s: the README's commands need no shell", s)
			cur.WriteRune(r)
			in = true
		}
	}
	require.Zero(t, quote, "unbalanced quote: %s", s)
	if in {
		words = append(words, cur.String())
	}
	return words
}
