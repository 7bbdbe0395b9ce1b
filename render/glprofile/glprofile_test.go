package glprofile

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/render/scene"
	"citydrive/slots"
)

func TestChoose(t *testing.T) {
	const (
		llvmpipe = "llvmpipe (LLVM 15.0.6, 256 bits)"
		nvidia   = "NVIDIA H200/PCIe/SSE2"
	)
	for _, c := range []struct {
		mode     Mode
		renderer string
		software bool
	}{
		{Auto, llvmpipe, true},
		{Auto, "softpipe", true},
		{Auto, "Software Rasterizer", true}, // swrast's string
		{Auto, "Mesa swrast", true},
		{Auto, "LLVMPIPE", true},
		{Auto, nvidia, false},
		{Auto, "AMD Radeon RX 6800 (radeonsi, navi21, LLVM 15.0.6)", false}, // LLVM but a GPU
		{Auto, "Mesa Intel(R) UHD Graphics 620 (KBL GT2)", false},
		{Auto, "", false},
		{Full, llvmpipe, false},
		{Software, nvidia, true},
	} {
		got := Choose(c.mode, c.renderer)
		assert.Equal(t, c.software, got.Software, "%s on %q", c.mode, c.renderer)
		assert.NotEmpty(t, got.Reason)
		if c.mode == Auto {
			assert.Contains(t, got.Reason, c.renderer, "the reason names the renderer")
		}
	}
}

func TestForSoftwareCutsVerticesFullChangesNothing(t *testing.T) {
	full := For(Choice{})
	assert.Equal(t, Settings{Passes: full.Passes}, full, "the full profile changes only the passes")
	assert.Equal(t, scene.Off, full.Passes.DepthPrepass, "no pre-pass: it cost more than it saved on the H200")
	assert.True(t, full.Passes.Lean && full.Passes.FarSort)
	assert.False(t, full.Passes.ShadowOneTap || full.Passes.VertexFog || full.Passes.Direct, "only variants that draw the same picture")
	s := For(Choice{Software: true})
	assert.Equal(t, scene.Off, s.Passes.DepthPrepass, "no depth pre-pass: every vertex would go through twice")
	assert.True(t, s.Passes.ShadowOneTap)
	assert.Greater(t, s.DetailBeyond, 0.0)
	assert.Less(t, s.DetailBeyond, slots.DetailBeyond, "details cut nearer than in the full profile")
	assert.True(t, s.ShadowLOD)
	assert.True(t, s.FarFogCut)
	assert.GreaterOrEqual(t, s.CullBackFacesBeyond, s.DetailBeyond, "back faces culled only where details are cut")
	assert.Equal(t, s.DetailBeyond, s.VehicleDetailBeyond, "traffic loses its details where the slots do")
	assert.Greater(t, scene.ShadowMoveFor(s.ShadowMoveShare, 160), scene.ShadowMove, "the shadow map redrawn less often")
	assert.LessOrEqual(t, s.ShadowMoveShare, 0.5, "the map still covers the eye (scene.ShadowMoveFor)")
	assert.Positive(t, s.ShadowSize)
	assert.NotContains(t, s.String(), "as built")
	assert.Equal(t, "as built, passes prepass=off,farsort,lean", full.String())
}

func TestParseMode(t *testing.T) {
	for _, m := range []Mode{Auto, Full, Software} {
		got, err := ParseMode(m.String())
		require.NoError(t, err)
		assert.Equal(t, m, got)
	}
	got, err := ParseMode(" Software ")
	require.NoError(t, err)
	assert.Equal(t, Software, got)
	_, err = ParseMode("fast")
	assert.ErrorContains(t, err, Words)
	assert.Equal(t, "software", Choice{Software: true}.Name())
	assert.Equal(t, "full", Choice{}.Name())
}
