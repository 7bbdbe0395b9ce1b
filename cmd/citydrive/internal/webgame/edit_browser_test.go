package webgame_test

import (
	"bytes"
	"context"
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
	pillarAhead  = 10
	pillarBlock  = voxel.Sand
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

// key is a key event on the page's window, as the game's listener takes it.
func key(ctx context.Context, typ, code string) error {
	_, err := eval[any](ctx, fmt.Sprintf(`window.dispatchEvent(new KeyboardEvent(%q, {code: %q})), null`, typ, code))
	return err
}

// stopCar turns the autopilot off (P) and brakes (S) until the car
// stands, polling once a drawn frame; poll keeps the test's other
// players going meanwhile.
func stopCar(t *testing.T, ctx context.Context, poll func() error) carProbe {
	t.Helper()
	require.NoError(t, key(ctx, "keydown", "KeyP"))
	require.NoError(t, key(ctx, "keyup", "KeyP"))
	require.NoError(t, key(ctx, "keydown", "KeyS"))
	braking := true
	var last carProbe
	still := 0 // frames in a row the car moved under stillMetres
	const slowMetres, stillMetres, stillFrames = 0.3, 0.01, 3
	waitFor(t, 60*time.Second, "the page's car stopped", func() (bool, error) {
		if err := poll(); err != nil {
			return false, err
		}
		c, err := eval[carProbe](ctx, readCar)
		if err != nil || c.Drawn == last.Drawn {
			return false, err
		}
		moved := math.Hypot(c.X-last.X, c.Z-last.Z)
		last = c
		if braking && moved < slowMetres { // held on, the brake reverses the car
			braking = false
			if err := key(ctx, "keyup", "KeyS"); err != nil {
				return false, err
			}
		}
		if moved < stillMetres {
			still++
		} else {
			still = 0
		}
		return !braking && still >= stillFrames, nil
	})
	return last
}

// pillarChunk reads the renderer's record of the chunk holding block b.
func pillarChunk(ctx context.Context, b [3]int64) (meshRecord, error) {
	return eval[meshRecord](ctx, fmt.Sprintf(`(() => { const r = window.citydrive.terrainChunk(%d, %d, %d);
		if (typeof r === "string") throw new Error(r);
		return r ? {Quads: r.quads, Stamp: r.stamp} : {Quads: 0, Stamp: 0}; })()`, b[0], b[1], b[2]))
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
	t.Logf("stopped at (%.1f, %.1f, %.1f) after %.1f s", c.X, c.Y, c.Z, time.Since(t0).Seconds())

	fx, fz := math.Cos(c.Heading), -math.Sin(c.Heading) // car.HeadingOf's inverse
	bx, bz := int64(math.Floor(c.X+pillarAhead*fx)), int64(math.Floor(c.Z+pillarAhead*fz))
	base := int64(math.Floor(c.Y))
	var blocks [][3]int64
	at := map[voxel.ChunkPos][3]int64{} // a block of each chunk the pillar touches
	before := map[voxel.ChunkPos]meshRecord{}
	for y := base; y < base+pillarHeight; y++ {
		b := [3]int64{bx, y, bz}
		blocks = append(blocks, b)
		p, _ := voxel.ChunkOf(b[0], b[1], b[2])
		if _, ok := at[p]; !ok {
			r, err := pillarChunk(ctx, b)
			require.NoError(t, err)
			at[p], before[p] = b, r
		}
	}
	shotBefore := screenshot(t, ctx)

	for _, b := range blocks {
		why, err := eval[any](ctx, fmt.Sprintf("window.citydrive.edit(%d, %d, %d, %d)", b[0], b[1], b[2], pillarBlock))
		require.NoError(t, err)
		require.Nil(t, why, "the page refused the edit")
	}
	tEdit := time.Now()
	// Every chunk the pillar touches is stored again, with a new mesh
	// (a larger stamp), once the server's broadcasts come back.
	var drawnAt int
	waitFor(t, 60*time.Second, "the pillar's chunks were meshed again and stored", func() (bool, error) {
		if err := poll(); err != nil {
			return false, err
		}
		for p, old := range before {
			r, err := pillarChunk(ctx, at[p])
			if err != nil || r.Stamp <= old.Stamp || r.Quads == 0 {
				return false, err
			}
		}
		cur, err := eval[carProbe](ctx, readCar)
		drawnAt = cur.Drawn
		return true, err
	})
	tMeshed := time.Now()
	// One more frame drawn, so the canvas the screenshot takes has it.
	waitFor(t, 30*time.Second, "a frame after the re-mesh was drawn", func() (bool, error) {
		cur, err := eval[carProbe](ctx, readCar)
		return cur.Drawn > drawnAt, err
	})
	shotAfter := screenshot(t, ctx)
	for p, old := range before {
		r, err := pillarChunk(ctx, at[p])
		require.NoError(t, err)
		t.Logf("chunk %v: %d quads (stamp %d) -> %d quads (stamp %d)", p, old.Quads, old.Stamp, r.Quads, r.Stamp)
	}
	if dir := os.Getenv("WEBGAME_EDIT_SHOTS"); dir != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "edit-before.png"), shotBefore, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "edit-after.png"), shotAfter, 0o644))
	}
	a, b := decode(t, shotBefore), decode(t, shotAfter)
	n, band := newSand(a, b)
	t.Logf("pillar: edits sent to stored meshes %.1f s; %d of %d pixels in the picture's upper middle turned sand-coloured; the check took %.1f s",
		tMeshed.Sub(tEdit).Seconds(), n, band, time.Since(t0).Seconds())
	assert.Greater(t, n, band/20, "the pillar shows in the middle of the picture")
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

// newSand counts the pixels of the picture's upper middle (the middle
// fifth across, the top half: where a pillar ahead of the stopped car
// stands) that are sand-coloured in after and were not in before, and
// how many pixels that region has.
func newSand(before, after image.Image) (n, total int) {
	r := after.Bounds()
	for y := r.Min.Y; y < r.Min.Y+r.Dy()/2; y++ {
		for x := r.Min.X + 2*r.Dx()/5; x < r.Min.X+3*r.Dx()/5; x++ {
			total++
			if sandy(after, x, y) && !sandy(before, x, y) {
				n++
			}
		}
	}
	return n, total
}

// sandy: warm and light, red over green over blue (terrain.BlockColours'
// sand, lit), unlike sky (blue), grass (green) and roads (grey).
func sandy(img image.Image, x, y int) bool {
	r, g, b, _ := img.At(x, y).RGBA()
	r, g, b = r>>8, g>>8, b>>8
	return r > 110 && r+8 >= g && g > b+20 && r > b+40
}
