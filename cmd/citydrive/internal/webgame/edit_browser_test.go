package webgame_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/voxel"
)

// The pillar an edit test builds: pillarHeight blocks of pillarBlock,
// pillarAhead metres in front of the stopped car (the chase camera sits
// 9 m behind it, so the pillar stands in the middle of the picture).
const (
	pillarHeight = 16
	pillarAhead  = 8
	pillarBlock  = voxel.Sand
	// minPillarColumns: the picture's columns the pillar must fill (it is
	// about 20 wide at 960 × 397, 17 m from the camera).
	minPillarColumns = 8
)

// carProbe is what the edit test reads of the page every poll.
type carProbe struct {
	X, Y, Z, Heading float64
	Drawn            int // frames drawn since the page opened
}

const readCar = `(() => { const l = window.citydrive.link, s = window.citydrive.stats;
	return {X: l.x || 0, Y: l.y || 0, Z: l.z || 0, Heading: l.heading || 0, Drawn: s.drawn || 0}; })()`

// meshRecord is window.citydrive.terrainChunk's answer (zero: none stored).
type meshRecord struct{ Quads, Stamp int }

// press presses and releases keys (KeyboardEvent.code) on the page's
// window, where the game listens, all before its next frame.
func press(ctx context.Context, codes ...string) error {
	list, err := json.Marshal(codes)
	if err != nil {
		return err
	}
	_, err = eval[any](ctx, fmt.Sprintf(`(() => { for (const code of %s) for (const typ of ["keydown", "keyup"])
		window.dispatchEvent(new KeyboardEvent(typ, {code})); return null; })()`, list))
	return err
}

// stopCar turns the autopilot off (P) and puts the car back on its lane
// at rest (Backspace: a reset, which the server grants), then waits until
// it stands still, polling once a drawn frame; poll keeps the test's
// other players going meanwhile. (Braking to a stop takes tens of
// seconds at SwiftShader's frame rate: the brake reverses the car, and
// coasting the last metre per second takes 20 frames.)
func stopCar(t *testing.T, ctx context.Context, poll func() error) carProbe {
	t.Helper()
	require.NoError(t, press(ctx, "KeyP", "Backspace"))
	var last carProbe
	still := 0 // frames in a row the car moved under stillMetres
	const stillMetres, stillFrames = 0.01, 2
	waitFor(t, 60*time.Second, "the page's car stood still", func() (bool, error) {
		if err := poll(); err != nil {
			return false, err
		}
		c, err := eval[carProbe](ctx, readCar)
		if err != nil || c.Drawn == last.Drawn {
			return false, err
		}
		if math.Hypot(c.X-last.X, c.Z-last.Z) < stillMetres {
			still++
		} else {
			still = 0
		}
		last = c
		return still >= stillFrames, nil
	})
	return last
}

// meshProbe is the renderer's records of the chunks holding some blocks
// and the frames drawn, read in one evaluation (each waits for the
// page's thread: about a frame on SwiftShader).
type meshProbe struct {
	Recs  []meshRecord
	Drawn int
}

func probeMeshes(ctx context.Context, blocks [][3]int64) (meshProbe, error) {
	list, err := json.Marshal(blocks)
	if err != nil {
		return meshProbe{}, err
	}
	return eval[meshProbe](ctx, fmt.Sprintf(`(() => { const recs = %s.map(([x, y, z]) => {
		const r = window.citydrive.terrainChunk(x, y, z);
		if (typeof r === "string") throw new Error(r);
		return r ? {Quads: r.quads, Stamp: r.stamp} : {Quads: 0, Stamp: 0}; });
		return {Recs: recs, Drawn: window.citydrive.stats.drawn || 0}; })()`, list))
}

// editShowsOnScreen stops the page's car, builds a pillar of sand ahead
// of it through window.citydrive.edit, and checks that the renderer
// stores the edited chunks' new meshes and that the pillar's colour
// appears in the middle of the picture where it was not before. It
// returns how many edits it sent.
func editShowsOnScreen(t *testing.T, ctx context.Context, poll func() error) int {
	t.Helper()
	t0 := time.Now()
	c := stopCar(t, ctx, poll)
	tStopped := time.Now()

	fx, fz := math.Cos(c.Heading), -math.Sin(c.Heading) // car.HeadingOf's inverse
	bx, bz := int64(math.Floor(c.X+pillarAhead*fx)), int64(math.Floor(c.Z+pillarAhead*fz))
	base := int64(math.Floor(c.Y))
	var blocks, probes [][3]int64 // probes: a block of each chunk the pillar touches
	seen := map[voxel.ChunkPos]bool{}
	for y := base; y < base+pillarHeight; y++ {
		b := [3]int64{bx, y, bz}
		blocks = append(blocks, b)
		if p, _ := voxel.ChunkOf(b[0], b[1], b[2]); !seen[p] {
			seen[p] = true
			probes = append(probes, b)
		}
	}
	before, err := probeMeshes(ctx, probes)
	require.NoError(t, err)
	shotBefore := screenshot(t, ctx)

	list, err := json.Marshal(blocks)
	require.NoError(t, err)
	why, err := eval[any](ctx, fmt.Sprintf(`(() => { for (const [x, y, z] of %s) {
		const why = window.citydrive.edit(x, y, z, %d); if (why) return why; } return null; })()`, list, pillarBlock))
	require.NoError(t, err)
	require.Nil(t, why, "the page refused an edit")
	tEdit := time.Now()
	// Every chunk the pillar touches is stored again, with a new mesh
	// (a larger stamp), once the server's broadcasts come back.
	var after meshProbe
	waitFor(t, 60*time.Second, "the pillar's chunks were meshed again and stored", func() (bool, error) {
		if err := poll(); err != nil {
			return false, err
		}
		after, err = probeMeshes(ctx, probes)
		for i, r := range after.Recs {
			if r.Stamp <= before.Recs[i].Stamp || r.Quads == 0 {
				return false, err
			}
		}
		return true, err
	})
	tMeshed := time.Now()
	for i, b := range probes {
		p, _ := voxel.ChunkOf(b[0], b[1], b[2])
		t.Logf("chunk %v: %d quads (stamp %d) -> %d quads (stamp %d)", p, before.Recs[i].Quads, before.Recs[i].Stamp, after.Recs[i].Quads, after.Recs[i].Stamp)
	}
	// One more frame drawn, so the canvas the screenshot takes has it.
	waitFor(t, 30*time.Second, "a frame after the re-mesh was drawn", func() (bool, error) {
		cur, err := eval[carProbe](ctx, readCar)
		return cur.Drawn > after.Drawn, err
	})
	shotAfter := screenshot(t, ctx)
	if dir := os.Getenv("WEBGAME_EDIT_SHOTS"); dir != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "edit-before.png"), shotBefore, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "edit-after.png"), shotAfter, 0o644))
	}
	n, band := pillarColumns(decode(t, shotBefore), decode(t, shotAfter))
	t.Logf("pillar %d m ahead of (%.1f, %.1f, %.1f): car stopped in %.1f s, edits to stored meshes %.1f s, "+
		"%d of the middle %d columns turned sand-coloured (half their top half or more); the check took %.1f s",
		pillarAhead, c.X, c.Y, c.Z, tStopped.Sub(t0).Seconds(), tMeshed.Sub(tEdit).Seconds(), n, band, time.Since(t0).Seconds())
	assert.GreaterOrEqual(t, n, minPillarColumns, "the pillar shows in the middle of the picture")
	return len(blocks)
}

func screenshot(t *testing.T, ctx context.Context) []byte {
	t.Helper()
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	return shot
}

func decode(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	require.NoError(t, err)
	return img
}

// pillarColumns counts the columns of the picture's middle fifth across
// in which at least half the pixels of the top half are sand-coloured in
// after and were not in before: a pillar ahead of the stopped car stands
// there, from the top of the picture down to about its middle. Other
// changes (traffic, a building drawn from nearer, a shadow) are not tall
// columns of sand; the pillar is about 20 columns wide.
func pillarColumns(before, after image.Image) (n, width int) {
	r := after.Bounds()
	h := r.Dy() / 2
	for x := r.Min.X + 2*r.Dx()/5; x < r.Min.X+3*r.Dx()/5; x++ {
		width++
		k := 0
		for y := r.Min.Y; y < r.Min.Y+h; y++ {
			if sandy(after, x, y) && !sandy(before, x, y) {
				k++
			}
		}
		if 2*k >= h {
			n++
		}
	}
	return n, width
}

// sandy: the colour of sand under some light: terrain.BlockColours'
// sand (0.78, 0.72, 0.52) times a light between the sky's ambient
// (0.34, 0.38, 0.45: a face the sun does not reach) and the sun (1, 0.96,
// 0.88), so green about red and blue well under both. Sky, roads, walls
// in shade and dark poles are bluer than that, grass greener, red and
// green lights far off the red-green balance.
func sandy(img image.Image, x, y int) bool {
	r, g, b, _ := img.At(x, y).RGBA()
	fr, fg, fb := float64(r>>8), float64(g>>8), float64(b>>8)
	return fr >= 25 && fg >= 0.85*fr && fg <= 1.15*fr && fb >= 0.5*fr && fb <= 0.92*min(fr, fg)
}
