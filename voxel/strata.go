package voxel

import "math/bits"

// Strata describes a generated chunk column by column (index z<<5|x) in the
// shape the terrain generator gives every column, from the bottom up: Deep
// up to Depth blocks under the column's top block, Depth blocks of
// Under[i], the top block Cap[i] just under Top[i], then Fluid up to
// FluidTop where the top is lower, air above. Heights are chunk-local and
// the runs are cut to the chunk, so a column whose top is at or below the
// chunk's floor has Top 0 and one whose Deep fills the chunk any Top of at
// least ChunkSize+Depth+1.
type Strata struct {
	Top         [ChunkArea]uint8 // first block above the top block, at most MaxStrataTop
	Under, Cap  [ChunkArea]Block // never Air
	Deep, Fluid Block            // Deep never Air; Fluid Air for none
	Depth       int              // blocks of Under, at most MaxStrataDepth
	FluidTop    int              // the fluid's first block above it (cut to [0, ChunkSize])
}

// MaxStrataTop and MaxStrataDepth bound Strata's Top and Depth: a top
// and every threshold compared with it fit a byte lane below its high bit.
const (
	MaxStrataTop   = 63
	MaxStrataDepth = MaxStrataTop - ChunkSize - 1
)

// FillStrata sets an all-air chunk from its strata: the same chunk as
// FillColumn run by run (deep, under, top block, fluid), with whole-word
// writes and no per-block branches. One pass over the columns finds each
// row's lowest and highest top and the tops' histogram, from which the
// counts follow; layers below every column's Under are one 1 KiB layer
// copied, layers above every top are fluid or left as air, and in the band
// between, a row whose columns all lie in one run at that layer is a copy
// of that run (a constant when its kind is the same in every column) while
// the rest is assembled eight blocks per word from three comparisons per
// byte, its occupancy falling out of the first; each band layer's rowZ is
// its rowX transposed.
func (c *Chunk) FillStrata(s *Strata) {
	depth := min(max(s.Depth, 0), MaxStrataDepth)
	fluidTop := min(max(s.FluidTop, 0), ChunkSize)
	if s.Fluid == Air {
		fluidTop = 0
	}
	// Per row z: bit v where some column's top is v.
	var seenZ [ChunkSize]uint64
	var hist [4][MaxStrataTop + 1]uint16
	var high uint64 // any top's high bits, which would break the lanes
	for z := range ChunkSize {
		row := (*[ChunkSize]uint8)(s.Top[z<<ChunkBits:])
		var seen uint64
		for x, v := range row {
			seen |= bitAt[v&MaxStrataTop]
			hist[x&3][v&MaxStrataTop]++
		}
		seenZ[z] = seen
		for k := 0; k < ChunkSize; k += 8 {
			high |= le64(row[k : k+8])
		}
	}
	if high&^(MaxStrataTop*byteOnes) != 0 {
		panic("voxel: Strata top above MaxStrataTop")
	}
	var all uint64
	for _, s := range &seenZ {
		all |= s
	}
	lo, hi := bits.TrailingZeros64(all), 63-bits.LeadingZeros64(all)
	var loZ, hiZ [ChunkSize]int8 // each row's lowest and highest top
	for r := range ChunkSize {
		loZ[r], hiZ[r] = int8(bits.TrailingZeros64(seenZ[r])), int8(63-bits.LeadingZeros64(seenZ[r]))
	}

	// Counts, from the histogram of tops: runs cut to the chunk.
	cut := func(v int) int { return min(max(v, 0), ChunkSize) }
	uniformUnder, uniformCap := uniform(&s.Under), uniform(&s.Cap)
	var deep, under, top, fluid int
	for v := lo; v <= hi; v++ {
		n := int(hist[0][v]) + int(hist[1][v]) + int(hist[2][v]) + int(hist[3][v])
		d, u, t := cut(v-1-depth), cut(v-1), cut(v)
		deep += n * d
		under += n * (u - d)
		top += n * (t - u)
		fluid += n * max(fluidTop-t, 0)
	}
	c.counts[s.Deep] += uint16(deep)
	if s.Fluid != Air {
		c.counts[s.Fluid] += uint16(fluid)
	}
	if uniformUnder {
		c.counts[s.Under[0]] += uint16(under)
	}
	if uniformCap {
		c.counts[s.Cap[0]] += uint16(top)
	}
	if !uniformUnder || !uniformCap {
		for i, v := range &s.Top {
			d, u, t := cut(int(v)-1-depth), cut(int(v)-1), cut(int(v))
			if !uniformUnder {
				c.counts[s.Under[i]] += uint16(u - d)
			}
			if !uniformCap {
				c.counts[s.Cap[i]] += uint16(t - u)
			}
		}
	}
	c.counts[Air] = 0 // a Fluid or kind of Air adds no blocks
	for _, n := range &c.counts {
		if n != 0 {
			c.kinds++
			c.solid += int32(n)
		}
	}

	// Layers below base hold Deep in every column, layers from top up no
	// ground.
	base, top := cut(lo-1-depth), cut(hi)
	if base > 0 {
		c.fillLayers(0, base, s.Deep)
	}
	deepW := uint64(s.Deep) * byteOnes
	underW, capW := uint64(s.Under[0])*byteOnes, uint64(s.Cap[0])*byteOnes
	for y := base; y < top; y++ {
		fluidHere := y < fluidTop
		var aboveW uint64 // what lies above the ground in this layer
		if fluidHere {
			aboveW = uint64(s.Fluid) * byteOnes
		}
		t1, t2, tDeep := y+1, y+2, y+depth+2 // a column is solid, Under or Deep where its top is at least these
		layer := (*[ChunkArea]Block)(c.blocks[y<<(2*ChunkBits):])
		for z := range ChunkSize {
			rlo, rhi := int(loZ[z]), int(hiZ[z])
			row := z << ChunkBits
			dst := (*[ChunkSize]Block)(layer[row:])
			solid := fullRow
			switch {
			case rlo >= tDeep:
				putRow(dst, deepW, nil)
			case rhi < t1:
				if !fluidHere {
					solid = 0
					break
				}
				putRow(dst, aboveW, nil)
			case rlo >= t2 && rhi < tDeep:
				putRow(dst, underW, pick(uniformUnder, &s.Under, row))
			case rlo >= t1 && rhi < t2:
				putRow(dst, capW, pick(uniformCap, &s.Cap, row))
			default:
				solid = mixedRow(s, dst, row, t1, t2, tDeep, deepW, aboveW)
				if fluidHere {
					solid = fullRow
				}
			}
			c.rowX[y<<ChunkBits|z] = solid
		}
		// rowZ (row x, bit z) is rowX (row z, bit x) transposed.
		rx := (*[ChunkSize]uint32)(c.rowX[y<<ChunkBits:])
		rz := (*[ChunkSize]uint32)(c.rowZ[y<<ChunkBits:])
		and, or := fullRow, uint32(0)
		n := 0
		for _, r := range rx {
			and, or = and&r, or|r
			n += bits.OnesCount32(r)
		}
		c.layer[y] = uint16(n)
		switch {
		case and == fullRow:
			*rz = fullRows32
		case or != 0:
			*rz = *rx
			transpose32(rz)
		}
	}
	if fluidTop > top {
		c.fillLayers(top, fluidTop, s.Fluid)
	}
}

// fillLayers sets layers [y0, y1) to b (not Air), their masks full: one
// layer by words, then copies doubling in size.
func (c *Chunk) fillLayers(y0, y1 int, b Block) {
	region := c.blocks[y0*ChunkArea : y1*ChunkArea]
	w := uint64(b) * byteOnes
	for i := 0; i+8 <= ChunkArea; i += 8 {
		putLE64(region[i:i+8], w)
	}
	for done := ChunkArea; done < len(region); {
		done += copy(region[done:], region[:done])
	}
	copy(c.rowX[y0*ChunkSize:y1*ChunkSize], fullRows[:])
	copy(c.rowZ[y0*ChunkSize:y1*ChunkSize], fullRows[:])
	for y := y0; y < y1; y++ {
		c.layer[y] = ChunkArea
	}
}

// transpose32 transposes a 32×32 bit matrix in place (a[i] bit j becomes
// a[j] bit i): swaps of ever smaller blocks, five rounds of 16 word pairs.
func transpose32(a *[ChunkSize]uint32) {
	m := uint32(0x0000ffff)
	for j := 16; j != 0; j, m = j>>1, m^(m<<(j>>1)) {
		for k := 0; k < ChunkSize; k = (k + j + 1) &^ j {
			t := (a[k]>>j ^ a[k+j]) & m
			a[k] ^= t << j
			a[k+j] ^= t
		}
	}
}

// fullRows32 is one layer's rows all solid.
var fullRows32 = *(*[ChunkSize]uint32)(fullRows[:])

// fullRows is every row of a chunk solid.
var fullRows = func() (r [ChunkArea]uint32) {
	for i := range r {
		r[i] = fullRow
	}
	return r
}()

// uniform reports whether every column has the kind of the first.
func uniform(k *[ChunkArea]Block) bool {
	k0 := uint64(k[0]) * byteOnes
	var d uint64
	for i := 0; i < ChunkArea; i += 8 {
		d |= le64(k[i:i+8]) ^ k0
	}
	return d == 0
}

// pick is row's kinds, or nil where every column has the same.
func pick(same bool, k *[ChunkArea]Block, row int) *[ChunkSize]Block {
	if same {
		return nil
	}
	return (*[ChunkSize]Block)(k[row:])
}

// putRow writes 32 blocks: kinds' where given, else the word w repeated.
func putRow(dst *[ChunkSize]Block, w uint64, kinds *[ChunkSize]Block) {
	if kinds != nil {
		*dst = *kinds
		return
	}
	putLE64(dst[0:8], w)
	putLE64(dst[8:16], w)
	putLE64(dst[16:24], w)
	putLE64(dst[24:32], w)
}

// mixedRow assembles a row whose columns lie in different runs at this
// layer, eight blocks per word, and returns its ground's occupancy (bit x).
// Per byte, the high bit survives subtracting a threshold from top|0x80
// (no lane borrows: tops are below 0x40) where the top is at least the
// threshold; nested masks select by XOR: above ^ (cap^above) ^ (under^cap)
// ^ (deep^under) leaves the kind of the innermost run.
func mixedRow(s *Strata, dst *[ChunkSize]Block, row, t1, t2, tDeep int, deepW, aboveW uint64) uint32 {
	s1, s2, sDeep := uint64(t1)*byteOnes, uint64(t2)*byteOnes, uint64(tDeep)*byteOnes
	var solid uint32
	for k := 0; k < ChunkSize; k += 8 {
		at := row + k
		d := le64(s.Top[at:at+8]) | byteHigh
		h1, h2, hDeep := (d-s1)&byteHigh, (d-s2)&byteHigh, (d-sDeep)&byteHigh
		m1, m2, mDeep := h1>>7*0xff, h2>>7*0xff, hDeep>>7*0xff
		capW, underW := le64(s.Cap[at:at+8]), le64(s.Under[at:at+8])
		w := aboveW ^ m1&(capW^aboveW) ^ m2&(underW^capW) ^ mDeep&(deepW^underW)
		putLE64(dst[k:k+8], w)
		solid |= uint32(h1>>7*byteGather>>56) << k
	}
	return solid
}
