//go:build js && wasm

// Command wasm is the web map's WebAssembly module: it draws map tiles
// and computes traffic from the seed, in the browser (see ../tile). It
// registers globalThis.citydriveMap with:
//
//	tile(seed string, x0, z0, metresPerPixel, size) Uint8ClampedArray (RGBA)
//	traffic(seed string, hour, worldSeconds, x, z, radius) Float64Array (x, z, heading, speed per vehicle)
package main

import (
	"math"
	"strconv"
	"syscall/js"

	"citydrive/cmd/citydrive/internal/webmap/tile"
	"citydrive/roadgraph/world"
)

func main() {
	renderers := map[uint64]*tile.Renderer{}
	traffics := map[[2]uint64]*tile.Traffic{}
	var buf []byte
	seedOf := func(v js.Value) (uint64, bool) {
		s, err := strconv.ParseUint(v.String(), 10, 64)
		return s, err == nil
	}
	api := js.Global().Get("Object").New()
	api.Set("tile", js.FuncOf(func(_ js.Value, a []js.Value) any {
		if len(a) != 5 {
			return js.Null()
		}
		seed, ok := seedOf(a[0])
		size := a[4].Int()
		scale := a[3].Float()
		if !ok || size < 1 || size > tile.MaxSize || !(scale > 0.01 && scale < 1000) {
			return js.Null()
		}
		r := renderers[seed]
		if r == nil {
			r = tile.New(seed)
			renderers[seed] = r
		}
		buf = r.Draw(tile.Spec{X0: a[1].Float(), Z0: a[2].Float(), Scale: scale, Size: size}, buf)
		out := js.Global().Get("Uint8ClampedArray").New(len(buf))
		js.CopyBytesToJS(out, buf)
		return out
	}))
	api.Set("traffic", js.FuncOf(func(_ js.Value, a []js.Value) any {
		if len(a) != 6 {
			return js.Null()
		}
		seed, ok := seedOf(a[0])
		hour := a[1].Float()
		if !ok || !(hour >= 0 && hour < 24) {
			return js.Null()
		}
		k := [2]uint64{seed, math.Float64bits(hour)}
		tr := traffics[k]
		if tr == nil {
			tr = tile.NewTraffic(seed, hour)
			traffics[k] = tr
		}
		vs := tr.At(a[2].Float(), world.Vec2{X: a[3].Float(), Z: a[4].Float()}, a[5].Float())
		out := js.Global().Get("Float64Array").New(4 * len(vs))
		for i, v := range vs {
			out.SetIndex(4*i, v.Pos.X)
			out.SetIndex(4*i+1, v.Pos.Z)
			out.SetIndex(4*i+2, v.Heading())
			out.SetIndex(4*i+3, v.Speed)
		}
		return out
	}))
	js.Global().Set("citydriveMap", api)
	js.Global().Call("dispatchEvent", js.Global().Get("Event").New("citydrive-map-ready"))
	select {} // serve calls until the page goes
}
