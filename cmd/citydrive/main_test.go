package main

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runCmd(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestBadInputGivesClearErrorsNotPanics(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bogus"}, `unknown command "bogus"`},
		{[]string{"bench", "-slots", "0"}, "slot count must be 1..4096"},
		{[]string{"bench", "-slot-verts", "3"}, "vertices per slot"},
		{[]string{"bench", "-workers", "-2"}, "workers must be"},
		{[]string{"bench", "-view-cost", "-1"}, "view cost must be a positive number"},
		{[]string{"bench", "-duration", "-5s"}, "-duration"},
		{[]string{"bench", "-nope"}, "flag provided but not defined"},
		{[]string{"map", "-at", "12"}, "want x,z"},
		{[]string{"map", "-at", "1e99,0"}, "out of range"},
		{[]string{"map", "-size", "3"}, "-size"},
		{[]string{"play", "-profile", "turbo"}, "unknown profile"},
		{[]string{"play", "-weather", "snow"}, "dry or wet"},
		{[]string{"shot", "-view", "side"}, "chase or top"},
		{[]string{"gpubench", "-frames", "0"}, "-frames must be in 1..100000"},
		{[]string{"gpubench", "-passes", "direct"}, "gpubench draws each of -variants instead"},
		{[]string{"shot", "-passes", "direct,fast"}, `-passes: pass variant "direct,fast": unknown word "fast"`},
		{[]string{"play", "-gl-profile", "fast"}, `-gl-profile: unknown GL profile "fast" (want auto | full | software)`},
		{[]string{"gpubench", "-rounds", "65"}, "-rounds must be in 1..64"},
		{[]string{"gpubench", "-variants", "fast"}, `unknown word "fast"`},
		{[]string{"gpubench", "-variants", "base;prepass=auto"}, "-variants: base given twice"},
		{[]string{"gpubench", "-variants", " ; "}, "-variants: none given"},
		{[]string{"shot", "-fullscreen"}, "flag provided but not defined: -fullscreen"}, // its window is hidden
		{[]string{"shot", "-render-scale", "0"}, "-render-scale must be in (0, 1]"},
		{[]string{"client", "-addr", "h", "-server-fingerprint", "ab"}, `-addr "h": want host:port`},
		{[]string{"client", "-addr", "h:1", "-server-fingerprint", "ab"}, "64 hex digits"},
		{[]string{"server", "-public-host", "a b"}, "-public-host"},
		{[]string{"play", "-time", "24"}, "-time must be in [0, 24)"},
		{[]string{"soak", "-hour", "-1"}, "-time must be in [0, 24)"},
	} {
		code, _, stderr := runCmd(tc.args...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Contains(t, stderr, tc.want, "%v", tc.args)
		assert.NotContains(t, stderr, "panic:", "no panic trace")
	}
}

func TestMapWritesAPicture(t *testing.T) {
	out := filepath.Join(t.TempDir(), "map.png")
	code, stdout, stderr := runCmd("map", "-seed", "7", "-o", out, "-size", "256", "-scale", "4")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "180 visible items")
	f, err := os.Open(out)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	assert.Equal(t, 256, img.Bounds().Dx())
}

func TestBenchJSONHasEveryField(t *testing.T) {
	code, stdout, stderr := runCmd("bench", "-duration", "2s", "-realtime=false", "-json", "-workers", "1")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var rep map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &rep), "the last line is one JSON object")
	for _, k := range []string{"initial_world_ms", "frame_stream_us_p50", "frame_stream_us_p99", "frame_stream_us_max",
		"main_allocs_per_frame", "alloc_bytes_per_s", "builds", "builds_per_s", "avg_vertices_per_item",
		"max_vertices_per_item", "slot_overflows", "stale_results_dropped", "fallback_builds", "gc_pause_p99_us",
		"slots", "verts_per_slot", "workers"} {
		assert.Contains(t, rep, k)
	}
	assert.EqualValues(t, 180, rep["slots"])
	assert.Greater(t, rep["builds"].(float64), 100.0)
}

func TestHelpListsTheKeys(t *testing.T) {
	code, stdout, _ := runCmd("play", "-h")
	assert.Equal(t, 0, code)
	for _, want := range []string{"-mute", "Esc", "pause menu", "M  minimap", "Gamepad", "right trigger throttle"} {
		assert.Contains(t, stdout, want)
	}
	assert.NotContains(t, stdout, "Esc quit")
}
