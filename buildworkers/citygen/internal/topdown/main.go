// Command topdown rasterises the items of one walk from above into a PNG so
// the look of the city generator can be judged without a GPU:
//
//	go run ./buildworkers/citygen/internal/topdown -seed 412 -out /tmp/citygen_top.png
package main

import (
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
	"time"

	"citydrive/buildworkers/citygen"
	"citydrive/roadgraph"
	"citydrive/roadgraph/world"
	"citydrive/slots"
	"citydrive/walker"
)

// dry is the fixed palette for negative-red colours.
var dry = [slots.PaletteSize][3]float64{
	{0.24, 0.24, 0.25}, {0.36, 0.35, 0.33}, {0.92, 0.92, 0.88}, {0.2, 0.4, 0.55}, {0.66, 0.64, 0.6},
}

func main() {
	seed := flag.Uint64("seed", 412, "world seed")
	out := flag.String("out", "/tmp/citygen_top.png", "output PNG")
	size := flag.Int("size", 1400, "image size in pixels")
	flag.Parse()

	g := roadgraph.New(world.New(*seed))
	j := g.JunctionNear(world.Vec2{})
	g.EnsureJunctionArms(j)
	e := j.Arms[0]
	pos := e.Nodes[1]
	heading := e.Tangent(1)
	wk, err := walker.New(walker.DefaultParams(), slots.DefaultSlots)
	if err != nil {
		log.Fatal(err)
	}
	items := append([]walker.Item(nil), wk.Walk(g, pos, heading)...)
	b := citygen.NewBuilder(g.World(), slots.DefaultVertsPerSlot)

	type tri struct {
		p   [3][3]float64
		col [3]float64
	}
	var tris []tri
	minX, minZ, maxX, maxZ := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	total, most, simplified := 0, 0, 0
	var buildTime time.Duration
	for _, it := range items {
		origin := [3]float64{math.Round(pos.X), 0, math.Round(pos.Z)}
		t0 := time.Now()
		r, ok := b.Build(g, it, origin)
		buildTime += time.Since(t0)
		if !ok {
			continue
		}
		total += r.Count
		most = max(most, r.Count)
		if r.Simplified {
			simplified++
		}
		for k := 0; k+2 < r.Count; k += 3 {
			var t tri
			for v := 0; v < 3; v++ {
				d := slots.Decode(r.Verts[(k+v)*slots.WordsPerVertex:])
				t.p[v] = [3]float64{float64(d.Pos[0]) + origin[0], float64(d.Pos[1]) + origin[1], float64(d.Pos[2]) + origin[2]}
			}
			d := slots.Decode(r.Verts[k*slots.WordsPerVertex:])
			c := [3]float64{float64(d.Colour[0]), float64(d.Colour[1]), float64(d.Colour[2])}
			if d.Palette >= 0 {
				c = dry[d.Palette]
			}
			n := [3]float64{float64(d.Normal[0]), float64(d.Normal[1]), float64(d.Normal[2])}
			light := 0.55 + 0.45*math.Max(0, n[0]*-0.4+n[1]*0.8+n[2]*-0.45)
			for i := range c {
				c[i] *= light
			}
			t.col = c
			tris = append(tris, t)
			for v := 0; v < 3; v++ {
				minX, maxX = math.Min(minX, t.p[v][0]), math.Max(maxX, t.p[v][0])
				minZ, maxZ = math.Min(minZ, t.p[v][2]), math.Max(maxZ, t.p[v][2])
			}
		}
	}
	fmt.Printf("items %d, vertices avg %.0f max %d, simplified %d, build avg %.1f µs\n",
		len(items), float64(total)/float64(len(items)), most, simplified,
		float64(buildTime.Microseconds())/float64(len(items)))

	W := *size
	span := math.Max(maxX-minX, maxZ-minZ)
	scale := float64(W) / span
	img := image.NewRGBA(image.Rect(0, 0, W, W))
	depth := make([]float64, W*W)
	for i := range depth {
		depth[i] = math.Inf(-1)
	}
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for y := 0; y < W; y++ {
		for x := 0; x < W; x++ {
			img.Set(x, y, color.RGBA{70, 95, 60, 255})
		}
	}
	for _, t := range tris {
		var sx, sy [3]float64
		for v := 0; v < 3; v++ {
			sx[v] = (t.p[v][0] - minX) * scale
			sy[v] = (t.p[v][2] - minZ) * scale
		}
		x0 := max(0, int(math.Floor(math.Min(sx[0], math.Min(sx[1], sx[2])))))
		x1 := min(W-1, int(math.Ceil(math.Max(sx[0], math.Max(sx[1], sx[2])))))
		y0 := max(0, int(math.Floor(math.Min(sy[0], math.Min(sy[1], sy[2])))))
		y1 := min(W-1, int(math.Ceil(math.Max(sy[0], math.Max(sy[1], sy[2])))))
		den := (sy[1]-sy[2])*(sx[0]-sx[2]) + (sx[2]-sx[1])*(sy[0]-sy[2])
		if math.Abs(den) < 1e-12 {
			continue
		}
		c := color.RGBA{uint8(math.Min(255, t.col[0]*255)), uint8(math.Min(255, t.col[1]*255)), uint8(math.Min(255, t.col[2]*255)), 255}
		for py := y0; py <= y1; py++ {
			for px := x0; px <= x1; px++ {
				fx, fy := float64(px)+0.5, float64(py)+0.5
				l0 := ((sy[1]-sy[2])*(fx-sx[2]) + (sx[2]-sx[1])*(fy-sy[2])) / den
				l1 := ((sy[2]-sy[0])*(fx-sx[2]) + (sx[0]-sx[2])*(fy-sy[2])) / den
				l2 := 1 - l0 - l1
				if l0 < 0 || l1 < 0 || l2 < 0 {
					continue
				}
				h := l0*t.p[0][1] + l1*t.p[1][1] + l2*t.p[2][1]
				if h > depth[py*W+px] {
					depth[py*W+px] = h
					img.SetRGBA(px, py, c)
				}
			}
		}
	}
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("wrote", *out, "covering", int(span), "m")
}
