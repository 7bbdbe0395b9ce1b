package cluster

import (
	"fmt"
	"strconv"
	"strings"

	"citydrive/voxel"
)

// RegionChunks is a region's side in chunks (512 m): the unit a server
// watches edits and subscribes to cars by. A player's area at the game's
// radius (4) touches one to four regions; at the largest (64) about 81.
const RegionChunks = 16

// Region is a column of RegionChunks × RegionChunks chunks, every height.
type Region struct{ X, Z int32 }

// RegionOf is the region holding chunk p (floor division, so chunk -1 is
// in region -1).
func RegionOf(p voxel.ChunkPos) Region {
	return Region{floorDiv(p.X), floorDiv(p.Z)}
}

func floorDiv(v int32) int32 {
	q := v / RegionChunks
	if v%RegionChunks < 0 {
		q--
	}
	return q
}

// Keys and subjects. A KV key may hold letters, digits and - / _ = . only,
// so coordinates are written in decimal with their sign ("-12"); dots
// separate tokens, and the region comes first so a watch can filter one
// region with a trailing wildcard:
//
//	c.<rx>.<rz>.<x>.<y>.<z>   one edited chunk
//	meta.servers              the counter that hands out player id ranges
//	own.<rx>.<rz>             the region's owner: its server slot (lease.go)
//	live.<slot>               a server's heartbeat: its address and players
//
// Car subjects are <prefix>.cars.<rx>.<rz>; a server's edit forwarding
// subject is <prefix>.edit.<slot>.
const (
	chunkPrefix = "c"
	ownPrefix   = "own"
	livePrefix  = "live"
)

// ownKey is the key of r's ownership lease.
func ownKey(r Region) string { return fmt.Sprintf("%s.%d.%d", ownPrefix, r.X, r.Z) }

// liveKey is the key of server slot's heartbeat.
func liveKey(slot uint32) string { return livePrefix + "." + strconv.FormatUint(uint64(slot), 10) }

// parseOwnKey inverts ownKey.
func parseOwnKey(k string) (Region, error) {
	t := strings.Split(k, ".")
	if len(t) != 3 || t[0] != ownPrefix {
		return Region{}, fmt.Errorf("cluster: %q is not an ownership key", k)
	}
	x, err := strconv.ParseInt(t[1], 10, 32)
	if err != nil {
		return Region{}, fmt.Errorf("cluster: ownership key %q: %v", k, err)
	}
	z, err := strconv.ParseInt(t[2], 10, 32)
	if err != nil {
		return Region{}, fmt.Errorf("cluster: ownership key %q: %v", k, err)
	}
	return Region{int32(x), int32(z)}, nil
}

// parseLiveKey inverts liveKey.
func parseLiveKey(k string) (uint32, error) {
	tail, ok := strings.CutPrefix(k, livePrefix+".")
	if !ok {
		return 0, fmt.Errorf("cluster: %q is not a heartbeat key", k)
	}
	n, err := strconv.ParseUint(tail, 10, 32)
	if err != nil || n == 0 || n > maxServerSlot {
		return 0, fmt.Errorf("cluster: heartbeat key %q names no server slot", k)
	}
	return uint32(n), nil
}

// editSubject is where server slot takes edits forwarded to it.
func editSubject(prefix string, slot uint32) string {
	return prefix + ".edit." + strconv.FormatUint(uint64(slot), 10)
}

// chunkKey is p's key in the edit bucket.
func chunkKey(p voxel.ChunkPos) string {
	r := RegionOf(p)
	b := make([]byte, 0, 48)
	b = append(b, chunkPrefix...)
	for _, v := range [...]int32{r.X, r.Z, p.X, p.Y, p.Z} {
		b = append(b, '.')
		b = strconv.AppendInt(b, int64(v), 10)
	}
	return string(b)
}

// regionFilter matches the keys of every chunk of r.
func regionFilter(r Region) string {
	return fmt.Sprintf("%s.%d.%d.>", chunkPrefix, r.X, r.Z)
}

// parseKey inverts chunkKey; anything else (another kind of key, a region
// that does not hold the chunk) is an error.
func parseKey(k string) (voxel.ChunkPos, error) {
	t := strings.Split(k, ".")
	if len(t) != 6 || t[0] != chunkPrefix {
		return voxel.ChunkPos{}, fmt.Errorf("cluster: %q is not a chunk key", k)
	}
	var v [5]int32
	for i := range v {
		n, err := strconv.ParseInt(t[i+1], 10, 32)
		if err != nil {
			return voxel.ChunkPos{}, fmt.Errorf("cluster: chunk key %q: %v", k, err)
		}
		v[i] = int32(n)
	}
	p := voxel.ChunkPos{X: v[2], Y: v[3], Z: v[4]}
	if RegionOf(p) != (Region{v[0], v[1]}) {
		return voxel.ChunkPos{}, fmt.Errorf("cluster: chunk key %q names the wrong region", k)
	}
	return p, nil
}

// carSubject is where the cars of region r are published.
func carSubject(prefix string, r Region) string {
	return fmt.Sprintf("%s.cars.%d.%d", prefix, r.X, r.Z)
}
