package slots

// Detail level within an item. A builder puts every triangle smaller than
// DetailArea after all the others and marks its vertices with DetailBit, so
// one item's vertices are a coarse prefix followed by its small details
// (kerbs, railings, window frames, grass). Far enough away the details are a
// pixel or two and the renderer draws only the prefix: the same slot, the
// same buffer, just a shorter count (CoarseCount).
const (
	// DetailWord is the word of a vertex that holds DetailBit.
	DetailWord = 5
	// DetailBit marks a vertex of a detail triangle.
	DetailBit = 1 << 24
	// DetailArea (m²): triangles under it are details. Three quarters of a
	// typical item's vertices are in triangles this small.
	DetailArea = 0.2
	// DetailBeyond (m): slots whose box is all farther from the eye than
	// this draw only their coarse prefix. A 0.45 m detail there spans about
	// 3 pixels of a 1080-pixel-high view.
	DetailBeyond = 140.0
)

// IsDetail reports whether vertex i of verts is marked as detail.
func IsDetail(verts []uint32, i int) bool {
	return verts[i*WordsPerVertex+DetailWord]&DetailBit != 0
}

// CoarseCount is the length of the coarse prefix of the first count
// vertices of verts: the index of the first detail vertex, or count when
// there is none. Items are partitioned (every detail vertex after every
// coarse one), so it is a binary search.
func CoarseCount(verts []uint32, count int) int {
	lo, hi := 0, count // the first detail vertex is in [lo, hi]
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if IsDetail(verts, m) {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo - lo%3
}
