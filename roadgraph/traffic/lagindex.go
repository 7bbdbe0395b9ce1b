package traffic

// lagTable indexes Flow.lags by key: Update asks for every vehicle of the
// frame (and for its leader) whether it lags, and a linear search over up
// to maxLagging entries per vehicle was most of the reaction's cost. Open
// addressing with linear probing; the flow only appends to lags between
// rebuilds, so there are no deletions.
type lagTable struct {
	slot [lagSlots]int16 // 0: empty; else the index in lags, plus one
	// lanes is a one-hash Bloom filter of the lagging vehicles' (edge,
	// lane, cycle): a vehicle whose leader's platoon has no one late
	// need not work out who its leader is.
	lanes [lagSlots / 64]uint64
}

// lagSlots is a power of two, at least twice maxLagging: probes stay short.
const lagSlots = 256

func laneBit(edge uint64, lane uint8, cycle int64) uint32 {
	h := edge*0x9e3779b97f4a7c15 ^ uint64(cycle)*0xbf58476d1ce4e5b9 ^ uint64(lane)
	h ^= h >> 31
	h *= 0x94d049bb133111eb
	return uint32(h>>32) & (lagSlots - 1)
}

// platoonMayLag is false when no vehicle of (edge, lane, cycle) lags.
func (x *lagTable) platoonMayLag(edge uint64, lane uint8, cycle int64) bool {
	b := laneBit(edge, lane, cycle)
	return x.lanes[b/64]&(1<<(b%64)) != 0
}

func lagHash(k Key) uint32 {
	h := k.Edge*0x9e3779b97f4a7c15 ^ uint64(k.Cycle)*0xbf58476d1ce4e5b9 ^ uint64(k.Lane)<<8 ^ uint64(k.K)
	h ^= h >> 31
	h *= 0x94d049bb133111eb
	return uint32(h >> 32)
}

// find is k's index in lags, or -1.
func (x *lagTable) find(lags []lagging, k Key) int {
	for h := lagHash(k); ; h++ {
		s := x.slot[h&(lagSlots-1)]
		if s == 0 {
			return -1
		}
		if lags[s-1].key == k {
			return int(s - 1)
		}
	}
}

// add records that lags[i] has key k (not already in the table).
func (x *lagTable) add(k Key, i int) {
	h := lagHash(k)
	for x.slot[h&(lagSlots-1)] != 0 {
		h++
	}
	x.slot[h&(lagSlots-1)] = int16(i + 1)
	b := laneBit(k.Edge, k.Lane, k.Cycle)
	x.lanes[b/64] |= 1 << (b % 64)
}

// rebuild indexes lags afresh (after entries were removed or moved).
func (x *lagTable) rebuild(lags []lagging) {
	x.slot = [lagSlots]int16{}
	x.lanes = [lagSlots / 64]uint64{}
	for i := range lags {
		x.add(lags[i].key, i)
	}
}
