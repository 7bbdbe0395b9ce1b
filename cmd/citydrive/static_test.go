package main

import (
	"bytes"
	"debug/elf"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The dedicated server is one static file: built with CGO_ENABLED=0 the
// command links no GL, GLFW or audio, and the headless packages link
// none of them in any build. These tests run the go command (go test
// puts its own on PATH).

// linksDisplay names the packages only play may link: GL, GLFW, the audio
// device and the GL renderer itself (its pure subpackages are fine).
func linksDisplay(path string) bool {
	for _, p := range []string{"github.com/go-gl/gl", "github.com/go-gl/glfw", "github.com/ebitengine/oto", "github.com/ebitengine/purego"} {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return path == "citydrive/render" || path == "citydrive/cmd/citydrive/internal/sound/speaker"
}

// listedPackage is what the tests read of go list -json.
type listedPackage struct {
	ImportPath string
	Standard   bool
	CgoFiles   []string
	Error      *struct{ Err string }
	DepsErrors []struct{ Err string }
}

// goList runs go list -json with cgo on or off and decodes its packages.
func goList(t *testing.T, cgo bool, args ...string) []listedPackage {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-e", "-json"}, args...)...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED="+map[bool]string{false: "0", true: "1"}[cgo])
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list %v: %s", args, stderr.String())
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		pkgs = append(pkgs, p)
	}
	require.NotEmpty(t, pkgs)
	return pkgs
}

// headless are the packages behind server, bots, soak, bench, map and
// sweep: even a cgo build of them must not reach GL (play's packages
// would come along into a server that needs no display).
var headless = []string{
	"citydrive/cmd/citydrive/internal/game", "citydrive/cmd/citydrive/internal/soak",
	"citydrive/cmd/citydrive/internal/sweep", "citydrive/cmd/citydrive/internal/bench",
	"citydrive/cmd/citydrive/internal/bots", "citydrive/cmd/citydrive/internal/host",
	"citydrive/cmd/citydrive/internal/mapimg",
}

func TestHeadlessBuildLinksNoCgo(t *testing.T) {
	deps := goList(t, false, "-deps", ".")
	var ours []string
	for _, p := range deps {
		assert.False(t, linksDisplay(p.ImportPath), "CGO_ENABLED=0 citydrive links %s", p.ImportPath)
		if p.Error != nil {
			t.Errorf("%s does not build without cgo: %s", p.ImportPath, p.Error.Err)
		}
		for _, e := range p.DepsErrors {
			t.Errorf("%s: a dependency does not build without cgo: %s", p.ImportPath, e.Err)
		}
		if !p.Standard {
			ours = append(ours, p.ImportPath)
		}
	}
	require.Contains(t, ours, "citydrive/cmd/citydrive/internal/soak", "the static binary has the soak")
	require.Contains(t, ours, "citydrive/netsync", "and the server")
	// The same packages with cgo available: none may have a cgo half
	// (the standard library's net and os/user may: they fall back to Go).
	for _, p := range goList(t, true, ours...) {
		assert.Empty(t, p.CgoFiles, "%s uses cgo where it can: the static server would differ from the tested one", p.ImportPath)
	}
	for _, p := range goList(t, true, append([]string{"-deps"}, headless...)...) {
		assert.False(t, linksDisplay(p.ImportPath), "a headless package links %s", p.ImportPath)
	}
}

// The static binary itself: it has no dynamic loader or libraries, its
// help marks what it cannot do, and play says why it cannot.
func TestStaticBinaryRunsWithoutDisplayCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the binary")
	}
	if runtime.GOOS != "linux" {
		t.Skip("checks a Linux ELF file")
	}
	bin := filepath.Join(t.TempDir(), "citydrive-static")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "CGO_ENABLED=0 go build: %s", out)

	f, err := elf.Open(bin)
	require.NoError(t, err)
	defer f.Close()
	libs, err := f.ImportedLibraries()
	require.NoError(t, err)
	assert.Empty(t, libs, "a static binary needs no shared library")
	assert.Nil(t, f.Section(".interp"), "a static binary has no dynamic loader")

	runBin := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		c := exec.Command(bin, args...)
		c.Stdout, c.Stderr = &stdout, &stderr
		err := c.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), stdout.String(), stderr.String()
		}
		require.NoError(t, err)
		return 0, stdout.String(), stderr.String()
	}
	code, help, _ := runBin("-h")
	assert.Equal(t, exitOK, code)
	for _, name := range displayCommands {
		assert.Regexp(t, `(?m)^  `+name+` .*\(not in this build: no cgo\)$`, help)
	}
	for _, name := range []string{"server", "export", "import", "bots", "soak", "bench", "map", "sweep"} {
		assert.Regexp(t, `(?m)^  `+name+` `, help)
		assert.NotRegexp(t, `(?m)^  `+name+` .*not in this build`, help)
	}
	assert.Contains(t, help, "build with CGO_ENABLED=1")

	code, _, stderr := runBin("play", "-seed", "7")
	assert.Equal(t, exitError, code)
	assert.Equal(t, "citydrive play: this binary was built without cgo (no display or sound); build with CGO_ENABLED=1\n", stderr)
	code, _, stderr = runBin()
	assert.Equal(t, exitError, code, "no command is play")
	assert.Contains(t, stderr, "built without cgo")

	code, version, _ := runBin("version")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, version, "generator:")
	code, serverHelp, _ := runBin("server", "-h")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, serverHelp, "usage: citydrive server")
}
