package hud

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMapViewProjects(t *testing.T) {
	// A 200 px square centred at (500, 300) showing 100 m each way: 1 m is 1 px.
	const cx, cy, half, rng = 500, 300, 100, 100
	cases := []struct {
		name      string
		heading   float64
		headingUp bool
		x, z      float32 // metres from the car
		px, py    float32
	}{
		{"north-up: the car is the centre", 0, false, 0, 0, 500, 300},
		{"north-up: north (-z) is up", 0, false, 0, -50, 500, 250},
		{"north-up: east (+x) is right", 1.2, false, 30, 0, 530, 300},
		{"north-up: the heading does not turn it", 2, false, 0, 40, 500, 340},
		{"heading-up east: ahead (+x) is up", 0, true, 50, 0, 500, 250},
		{"heading-up east: north is left", 0, true, 0, -20, 480, 300},
		{"heading-up north: ahead (-z) is up", math.Pi / 2, true, 0, -50, 500, 250},
		{"heading-up north: east is right", math.Pi / 2, true, 20, 0, 520, 300},
		{"heading-up west: ahead (-x) is up", math.Pi, true, -50, 0, 500, 250},
		{"heading-up south: ahead (+z) is up, east is left", -math.Pi / 2, true, 10, 40, 490, 260},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := NewMapView(cx, cy, half, rng, c.heading, c.headingUp)
			px, py := v.Project(c.x, c.z)
			assert.InDelta(t, c.px, px, 1e-3)
			assert.InDelta(t, c.py, py, 1e-3)
		})
	}
	// Scale: half the range is half the half-side.
	v := NewMapView(0, 0, 80, 200, 0, false)
	px, _ := v.Project(100, 0)
	assert.InDelta(t, 40, px, 1e-4)
}

func TestMapViewClips(t *testing.T) {
	v := NewMapView(0, 0, 10, 10, 0, false) // the square [-10, 10]²
	cases := []struct {
		name         string
		a, b         [2]float32
		ok           bool
		wantA, wantB [2]float32
	}{
		{"inside stays", [2]float32{-5, -5}, [2]float32{5, 5}, true, [2]float32{-5, -5}, [2]float32{5, 5}},
		{"crossing is cut at both sides", [2]float32{-20, 0}, [2]float32{20, 0}, true, [2]float32{-10, 0}, [2]float32{10, 0}},
		{"leaving is cut at one side", [2]float32{0, 0}, [2]float32{0, 30}, true, [2]float32{0, 0}, [2]float32{0, 10}},
		{"diagonal through a corner region", [2]float32{-15, -5}, [2]float32{5, 15}, true, [2]float32{-10, 0}, [2]float32{0, 10}},
		{"outside to one side", [2]float32{11, -20}, [2]float32{12, 20}, false, [2]float32{}, [2]float32{}},
		{"outside past a corner", [2]float32{5, 20}, [2]float32{20, 5}, false, [2]float32{}, [2]float32{}},
		{"parallel outside", [2]float32{-20, 15}, [2]float32{20, 15}, false, [2]float32{}, [2]float32{}},
		{"a point inside", [2]float32{1, 1}, [2]float32{1, 1}, true, [2]float32{1, 1}, [2]float32{1, 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ax, ay, bx, by, ok := v.Clip(c.a[0], c.a[1], c.b[0], c.b[1])
			require.Equal(t, c.ok, ok)
			if ok {
				assert.InDeltaSlice(t, []float32{c.wantA[0], c.wantA[1], c.wantB[0], c.wantB[1]}, []float32{ax, ay, bx, by}, 1e-4)
			}
		})
	}
}

func TestMapViewClampsToTheEdge(t *testing.T) {
	v := NewMapView(100, 100, 50, 50, 0, false)
	cases := []struct{ x, y, wx, wy float32 }{
		{120, 90, 120, 90},   // inside: unchanged
		{300, 100, 148, 100}, // far right: on the border, inset 2
		{100, -100, 100, 52}, // far up
		{200, 200, 148, 148}, // diagonal: the corner
	}
	for _, c := range cases {
		x, y := v.ClampToEdge(c.x, c.y, 2)
		assert.InDelta(t, c.wx, x, 1e-4)
		assert.InDelta(t, c.wy, y, 1e-4)
	}
}

// bounds is the bounding box of a layout's vertices.
func bounds(v []float32) (x0, y0, x1, y1 float32) {
	x0, y0, x1, y1 = math.MaxFloat32, math.MaxFloat32, -math.MaxFloat32, -math.MaxFloat32
	for i := 0; i < len(v); i += VertexFloats {
		x0, x1 = min(x0, v[i]), max(x1, v[i])
		y0, y1 = min(y0, v[i+1]), max(y1, v[i+1])
	}
	return
}

func TestMinimapStaysInItsSquareAndAllocatesNothing(t *testing.T) {
	m := &Minimap{Range: 100, Heading: 0.7, HeadingUp: true}
	// A grid of roads reaching well past the range, and players in and out.
	for k := float32(-300); k <= 300; k += 60 {
		m.Roads = append(m.Roads, -400, k, 400, k, k, -400, k, 400)
	}
	m.Others = []float32{10, 10, 5000, -20}
	l := Layout{V: make([]float32, 0, 200000), Scale: 2}
	x0, y0, side := l.MapRect(1280, 720)
	assert.InDelta(t, 202, side, 0.5)
	assert.Equal(t, float32(1280)-side-16, x0)
	l.Minimap(x0, y0, side, m)
	require.Zero(t, l.Dropped)
	bx0, by0, bx1, by1 := bounds(l.V)
	// Everything within the square and its 1-scale-pixel border, plus the
	// line caps (a quarter of the line width).
	slack := float32(2) + roadWidth*2
	assert.GreaterOrEqual(t, bx0, x0-slack)
	assert.GreaterOrEqual(t, by0, y0-slack)
	assert.LessOrEqual(t, bx1, x0+side+slack)
	assert.LessOrEqual(t, by1, y0+side+slack)
	n := len(l.V)
	allocs := testing.AllocsPerRun(10, func() {
		l.V = l.V[:0]
		l.Minimap(x0, y0, side, m)
	})
	assert.Zero(t, allocs)
	assert.Equal(t, n, len(l.V), "the same map each time")

	// Roads out of range draw nothing but the frame, arrow and N.
	far := &Minimap{Range: 100, Roads: []float32{500, 500, 600, 600}}
	l.V = l.V[:0]
	l.Minimap(x0, y0, side, far)
	withRoad := len(l.V)
	far.Roads = nil
	l.V = l.V[:0]
	l.Minimap(x0, y0, side, far)
	assert.Equal(t, len(l.V), withRoad)
}

func TestMinimapArrowPointsAlongTheHeading(t *testing.T) {
	// North-up, heading north (pi/2): the arrow's tip is straight above the centre.
	l := Layout{}
	m := &Minimap{Range: 100, Heading: math.Pi / 2}
	l.Minimap(0, 0, 200, m)
	// The arrow is the two triangles after the panels and roads: its tip
	// is the first vertex of the first triangle after the two rects.
	tip := l.V[12*VertexFloats:]
	assert.InDelta(t, 100, tip[0], 1e-3)
	assert.Less(t, tip[1], float32(100))
	// Heading east, heading-up: also straight up.
	l.V = l.V[:0]
	l.Minimap(0, 0, 200, &Minimap{Range: 100, HeadingUp: true})
	tip = l.V[12*VertexFloats:]
	assert.InDelta(t, 100, tip[0], 1e-3)
	assert.Less(t, tip[1], float32(100))
	// Heading east, north-up: to the right.
	l.V = l.V[:0]
	l.Minimap(0, 0, 200, &Minimap{Range: 100})
	tip = l.V[12*VertexFloats:]
	assert.Greater(t, tip[0], float32(100))
	assert.InDelta(t, 100, tip[1], 1e-3)
}

func TestMenuIsCentredAndMarksTheSelection(t *testing.T) {
	l := Layout{Scale: 1}
	m := &Menu{Title: "PAUSED", Items: []string{"RESUME", "QUIT"}, Selected: 1, Hint: "ESC RESUME  Q QUIT"}
	x0, y0, x1, y1 := l.Menu(640, 360, m)
	assert.InDelta(t, 320, (x0+x1)/2, 1)
	assert.InDelta(t, 180, (y0+y1)/2, 1)
	// The first quad dims the whole screen.
	assert.Equal(t, []float32{0, 0}, l.V[0:2])
	assert.Equal(t, Dim[3], l.V[7])
	// Selected-colour glyphs: the bar, ">" and "QUIT" (4 letters).
	sel := 0
	for i := 0; i < len(l.V); i += VertexFloats * 6 {
		if Colour(l.V[i+4:i+8]) == Selected {
			sel++
		}
	}
	assert.Equal(t, 1+1+4, sel)
	allocs := testing.AllocsPerRun(10, func() {
		l.V = l.V[:0]
		l.Menu(640, 360, m)
	})
	assert.Zero(t, allocs)
}

func TestMapViewClipsQuads(t *testing.T) {
	v := NewMapView(0, 0, 10, 10, 0, false) // the square [-10, 10]²
	area := func(p [maxClipped][2]float32, n int) float64 {
		a := 0.0
		for i := range n {
			j := (i + 1) % n
			a += float64(p[i][0]*p[j][1] - p[j][0]*p[i][1])
		}
		return math.Abs(a) / 2
	}
	sq := func(x0, y0, x1, y1 float32) [4][2]float32 {
		return [4][2]float32{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}
	}
	cases := []struct {
		name string
		q    [4][2]float32
		area float64
	}{
		{"inside stays whole", sq(-2, -2, 3, 4), 30},
		{"over one edge is cut", sq(5, -1, 15, 1), 10},
		{"over a corner is cut twice", sq(5, 5, 15, 15), 25},
		{"covering the square is the square", sq(-50, -50, 50, 50), 400},
		{"outside is nothing", sq(11, 11, 20, 20), 0},
		{"a turned square inside the view", [4][2]float32{{0, -5}, {5, 0}, {0, 5}, {-5, 0}}, 50},
		{"a large diamond: the square", [4][2]float32{{0, -30}, {30, 0}, {0, 30}, {-30, 0}}, 400},
		{"a diamond whose tips poke out", [4][2]float32{{0, -12}, {12, 0}, {0, 12}, {-12, 0}}, 288 - 4*4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, n := v.ClipQuad(c.q)
			if c.area == 0 {
				assert.Zero(t, n)
				return
			}
			assert.InDelta(t, c.area, area(p, n), 1e-3)
			for _, pt := range p[:n] {
				assert.LessOrEqual(t, abs32(pt[0]), float32(10.0001))
				assert.LessOrEqual(t, abs32(pt[1]), float32(10.0001))
			}
		})
	}
}

func TestMinimapDrawsWaterUnderTheRoads(t *testing.T) {
	l := Layout{}
	m := &Minimap{Range: 100, Water: []float32{-500, -500, 500, 500}, Roads: []float32{-50, 0, 50, 0}}
	l.Minimap(0, 0, 200, m)
	// After the two panels, the water: the whole square, as a fan.
	first := l.V[12*VertexFloats:]
	assert.Equal(t, MapWater, Colour(first[4:8]))
	water := 0.0
	for i := 12 * VertexFloats; i < len(l.V); i += 3 * VertexFloats {
		if Colour(l.V[i+4:i+8]) != MapWater {
			break
		}
		a := l.V[i:]
		b, c := a[VertexFloats:], a[2*VertexFloats:]
		water += math.Abs(float64((b[0]-a[0])*(c[1]-a[1])-(c[0]-a[0])*(b[1]-a[1]))) / 2
	}
	assert.InDelta(t, 200*200, water, 1)
}

// A compact menu draws its items smaller: a lower panel for the same
// items, still centred.
func TestCompactMenuIsLower(t *testing.T) {
	l := Layout{Scale: 2}
	m := &Menu{Title: "KEYS", Items: []string{"THROTTLE   W / UP", "BRAKE   S", "BACK"}, Hint: "ESC BACK"}
	_, y0, _, y1 := l.Menu(1280, 720, m)
	m.Compact = true
	l.V = l.V[:0]
	_, cy0, _, cy1 := l.Menu(1280, 720, m)
	assert.Less(t, cy1-cy0, y1-y0)
	assert.InDelta(t, 360, (cy0+cy1)/2, 1)

	// Sixteen items on a 540-line screen (scale 2): the items drop to the
	// text scale so the panel fits.
	m.Items = make([]string, 16)
	for i := range m.Items {
		m.Items[i] = "STEER RIGHT              D / RIGHT"
	}
	l.V = l.V[:0]
	_, y0, _, y1 = l.Menu(960, 540, m)
	assert.GreaterOrEqual(t, y0, float32(0))
	assert.LessOrEqual(t, y1, float32(540))
}
