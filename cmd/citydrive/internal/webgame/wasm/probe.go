//go:build js && wasm

package main

import (
	"fmt"
	"math"
	"syscall/js"

	"citydrive/render/webgl"
	"citydrive/voxel"
)

// terrainHook is window.citydrive.terrainChunk(x, y, z): the renderer's
// record of the mesh of the chunk holding world block x, y, z, as
// {quads, stamp} (stamp grows each time the chunk's mesh is stored again,
// as after an edit), or null when none is stored; a string says why the
// arguments were not taken.
func terrainHook(d *webgl.Display) js.Func {
	return js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) != 3 {
			return fmt.Sprintf("terrainChunk(x, y, z) takes 3 whole numbers, got %d arguments", len(args))
		}
		var v [3]int64
		for i, a := range args {
			f := math.NaN()
			if a.Type() == js.TypeNumber {
				f = a.Float()
			}
			if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
				return fmt.Sprintf("terrainChunk: argument %d (%s) is not a whole number", i+1, a.Call("toString").String())
			}
			v[i] = int64(f)
		}
		p, _ := voxel.ChunkOf(v[0], v[1], v[2])
		c, ok := d.TerrainChunk(p)
		if !ok {
			return nil
		}
		return map[string]any{"quads": c.Quads, "stamp": c.Stamp}
	})
}
