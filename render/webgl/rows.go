package webgl

// rowRuns splits the texels [first, first+n) of a texture width texels
// wide, read row by row, into runs that each lie in one row: fn gets the
// run's column and row and its offset and length within the n texels.
// WebGL2 has no texture buffers, so the voxel ground's quads and chunk
// table live in 2-D textures and an upload of consecutive texels is one
// texSubImage2D per row it touches.
func rowRuns(first, n, width int, fn func(x, y, from, count int)) {
	for from := 0; from < n; {
		i := first + from
		x, y := i%width, i/width
		c := min(width-x, n-from)
		fn(x, y, from, c)
		from += c
	}
}
