// Package raster is the pixel coverage rule the map pictures share:
// `citydrive map` (mapimg) and the web map's tiles (webmap/tile) fill the
// same pixels for a road, so the two can be compared pixel by pixel.
package raster

import "math"

// MinRadius is the least radius in pixels a capsule is drawn with: a
// road thinner than a pixel at this scale still shows.
const MinRadius = 0.8

// Capsule calls set for every pixel of a size×size picture whose centre
// lies within r pixels (at least MinRadius) of the segment from (ax, ay)
// to (bx, by), in pixel coordinates.
func Capsule(ax, ay, bx, by, r float64, size int, set func(x, y int)) {
	rp := math.Max(MinRadius, r)
	x0, x1 := int(math.Floor(math.Min(ax, bx)-rp)), int(math.Ceil(math.Max(ax, bx)+rp))
	y0, y1 := int(math.Floor(math.Min(ay, by)-rp)), int(math.Ceil(math.Max(ay, by)+rp))
	x0, y0 = max(x0, 0), max(y0, 0)
	x1, y1 = min(x1, size-1), min(y1, size-1)
	dx, dy := bx-ax, by-ay
	l2 := dx*dx + dy*dy
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			px, py := float64(x)+0.5-ax, float64(y)+0.5-ay
			t := 0.0
			if l2 > 0 {
				t = math.Max(0, math.Min(1, (px*dx+py*dy)/l2))
			}
			ex, ey := px-t*dx, py-t*dy
			if ex*ex+ey*ey <= rp*rp {
				set(x, y)
			}
		}
	}
}
