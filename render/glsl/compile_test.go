package glsl

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// programs are the shader pairs the two renderers link, with the defines
// they are built with.
var programs = []struct {
	name        string
	defs        []string
	vert        string
	frag        string
	desktopOnly bool
}{
	{name: "world", vert: WorldVert, frag: WorldFrag},
	{name: "far world", defs: []string{"FAR_MASK"}, vert: WorldVert, frag: WorldFrag},
	// the software profile's, and the pass words' (render.Passes)
	{name: "world packed", defs: []string{"LEAN", "SHADOW_ONE_TAP", "PACK"}, vert: WorldVert, frag: WorldFrag},
	{name: "far world packed", defs: []string{"FAR_MASK", "LEAN", "VERTEX_FOG", "SHADOW_ONE_TAP", "PACK"}, vert: WorldVert, frag: WorldFrag},
	{name: "world candidates", defs: []string{"LEAN", "FRAG_SHADOW", "SHADOW_SKIP", "PACK"}, vert: WorldVert, frag: WorldFrag},
	{name: "depth", vert: DepthVert, frag: DepthFrag},
	{name: "far depth", vert: DepthFarVert, frag: DepthFarFrag},
	{name: "trees", vert: TreeVert, frag: TreeFrag},
	{name: "vehicles", vert: VehicleVert, frag: VehicleFrag},
	{name: "sky", vert: SkyVert, frag: SkyFrag},
	{name: "terrain", vert: TerrainMainVert, frag: TerrainFrag},
	{name: "terrain depth", vert: TerrainDepthVert, frag: DepthFrag},
	{name: "lines", vert: LineVert, frag: LineFrag, desktopOnly: true},
	{name: "hud", vert: HudVert, frag: HudFrag, desktopOnly: true},
}

// TestSourcesCompileInBothDialects runs Khronos' reference compiler
// (glslangValidator, Debian's glslang-tools) over every program in both
// dialects, so an ES-only mistake shows here and not only in a browser.
func TestSourcesCompileInBothDialects(t *testing.T) {
	tool, err := exec.LookPath("glslangValidator")
	if err != nil {
		t.Skip("no glslangValidator on PATH (apt-get install glslang-tools)")
	}
	dir := t.TempDir()
	for _, p := range programs {
		for _, d := range []Dialect{Desktop, ES} {
			if d == ES && p.desktopOnly {
				continue
			}
			for _, s := range []struct{ ext, text string }{{"vert", p.vert}, {"frag", p.frag}} {
				f := filepath.Join(dir, "s."+s.ext)
				require.NoError(t, os.WriteFile(f, []byte(Source(d, p.defs, s.text)), 0o644))
				out, err := exec.Command(tool, f).CombinedOutput()
				require.NoError(t, err, "%s (%s, dialect %d): %s", p.name, s.ext, d, out)
			}
		}
	}
}
