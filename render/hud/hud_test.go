package hud

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEveryPrintableCharacterHasAGlyph(t *testing.T) {
	for r := rune(32); r < 127; r++ {
		if r >= 'a' && r <= 'z' {
			continue
		}
		_, ok := glyphs[r]
		assert.True(t, ok, "missing glyph %q", r)
	}
	assert.Equal(t, Glyph('A'), Glyph('a'))
	assert.Equal(t, Glyph('?'), Glyph('é'))
	// Glyphs fit in 5 bits and distinct characters look distinct.
	seen := map[[GlyphH]uint8]rune{}
	for r, g := range glyphs {
		for _, row := range g {
			assert.Less(t, row, uint8(1<<GlyphW), "glyph %q too wide", r)
		}
		if prev, dup := seen[g]; dup {
			t.Errorf("glyphs %q and %q are identical", prev, r)
		}
		seen[g] = r
	}
}

func TestAtlas(t *testing.T) {
	pix := Atlas()
	require.Len(t, pix, AtlasW*AtlasH)
	at := func(r rune, x, y int) byte { return pix[y*AtlasW+(int(r)-firstCh)*CellW+x] }
	// '1' has its stem in column 2 on every row, 'L' is a full bottom row.
	for y := 0; y < GlyphH; y++ {
		assert.Equal(t, byte(255), at('1', 2, y))
	}
	for x := 0; x < GlyphW; x++ {
		assert.Equal(t, byte(255), at('L', x, 6))
		assert.Equal(t, byte(0), at(' ', x, 3))
	}
	assert.Equal(t, byte(0), at('L', 5, 6), "spacing column is empty")
	assert.Equal(t, byte(255), pix[3*AtlasW+AtlasW-2], "the solid cell")
}

func TestTextLayout(t *testing.T) {
	l := Layout{Scale: 2}
	w := l.Text(10, 20, "A B", White)
	assert.Equal(t, float32(3*CellW*2), w)
	require.Len(t, l.V, 2*6*VertexFloats, "spaces emit no quad")
	// The first quad starts at (10,20) and is 10×14 pixels.
	assert.Equal(t, []float32{10, 20}, l.V[0:2])
	assert.Equal(t, []float32{20, 34}, l.V[2*VertexFloats:2*VertexFloats+2])
	assert.Equal(t, float32(10+2*CellW*2), l.V[6*VertexFloats])
}

func TestCapacityIsNeverOverrun(t *testing.T) {
	l := Layout{Capacity: 12}
	l.Text(0, 0, "ABCDE", White)
	assert.Len(t, l.V, 12*VertexFloats)
	assert.Equal(t, 3, l.Dropped)
}

func TestLinesAndProgressBar(t *testing.T) {
	l := Layout{Scale: 1}
	l.Lines([]string{"FPS 60", "SLOTS 12/180"})
	assert.Len(t, l.V, (1+5+11)*6*VertexFloats, "panel + glyphs")
	l = Layout{Scale: 2}
	x0, _, x1, _, fill := l.ProgressBar(1280, 720, 0.25, "")
	assert.InDelta(t, x0+(x1-x0)*0.25, fill, 1e-4)
	assert.Len(t, l.V, 2*6*VertexFloats)
	l = Layout{}
	_, _, _, _, fill = l.ProgressBar(100, 100, 7, "")
	assert.Equal(t, float32(75), fill, "clamped to 1")
	assert.Equal(t, float32(2), ScaleFor(720))
	assert.Equal(t, float32(1), ScaleFor(400))
}
