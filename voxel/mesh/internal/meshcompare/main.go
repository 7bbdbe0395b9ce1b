// Command meshcompare is the Go half of the side-by-side harness against
// binary-greedy-meshing (bgm), driven by cmd/mesher-compare.sh.
//
//	meshcompare -dump DIR      write each volume's 64³ window in bgm's layout
//	meshcompare -time          time our mesher on each volume, one line each
//	meshcompare -report FILE   the table from the lines of interleaved rounds
//
// Region. Our inner 2³ chunks mesh field blocks [32, 96)³. bgm meshes a
// 62³ chunk from a 64³ input padded by one block on every side; the dump is
// field window [31, 95)³, so bgm meshes [32, 94)³ with the same neighbours
// ours sees. Times are per meshed block (8·32³ ours, 62³ bgm).
//
// Faces. The two meshers merge differently (ours stops at chunk edges, bgm
// runs 62 wide), so quad counts cannot agree; unit faces must. Both sides
// print the unit faces owned by blocks of the common region [32, 94)³ per
// (direction, block kind); -report fails unless they are equal.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"citydrive/voxel"
	"citydrive/voxel/mesh"
	"citydrive/voxel/mesh/internal/volumes"
)

const (
	pad    = 64              // bgm's padded chunk edge (CS_P)
	lo     = voxel.ChunkSize // first field block either side meshes
	hiBgm  = lo + pad - 2    // one past bgm's last meshed block
	winLo  = lo - 1          // first block of the dumped window
	oursN  = 8 * voxel.ChunkVolume
	bgmN   = (pad - 2) * (pad - 2) * (pad - 2)
	sample = 4 * time.Millisecond // CPU time of one timed sample, at least
)

// bgm's face order (+Y −Y +X −X +Z −Z) in voxel.Face terms, for -report.
var bgmFaces = [voxel.NumFaces]voxel.Face{voxel.PosY, voxel.NegY, voxel.PosX, voxel.NegX, voxel.PosZ, voxel.NegZ}

func main() {
	dump := flag.String("dump", "", "write the volumes for the C++ driver into this directory")
	timeIt := flag.Bool("time", false, "time our mesher on every volume")
	samples := flag.Int("samples", 15, "timed samples per volume (-time)")
	label := flag.String("label", "ours", "side label printed by -time")
	report := flag.String("report", "", "print the table from this file of result lines")
	flag.Parse()
	switch {
	case *dump != "":
		check(dumpVolumes(*dump))
	case *timeIt:
		timeOurs(*label, *samples)
	case *report != "":
		check(printReport(*report))
	default:
		flag.Usage()
		os.Exit(2)
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "meshcompare:", err)
		os.Exit(1)
	}
}

// dumpVolumes writes DIR/NAME.vox per volume: the window's 64³ kinds in
// bgm's order, index z + 64·x + 64²·y, and DIR/volumes listing the names.
func dumpVolumes(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var names []string
	for _, v := range volumes.All() {
		buf := make([]byte, pad*pad*pad)
		for y := range pad {
			for x := range pad {
				for z := range pad {
					buf[z+pad*x+pad*pad*y] = byte(v.F.At(winLo+x, winLo+y, winLo+z))
				}
			}
		}
		if err := os.WriteFile(filepath.Join(dir, v.Name+".vox"), buf, 0o644); err != nil {
			return err
		}
		names = append(names, v.Name)
	}
	return os.WriteFile(filepath.Join(dir, "volumes"), []byte(strings.Join(names, "\n")+"\n"), 0o644)
}

// timeOurs prints, per volume, "LABEL NAME BEST MEDIAN BLOCKS FACES": the
// best and median CPU ns per meshed block over the samples, and the unit
// face counts of the common region.
func timeOurs(label string, samples int) {
	runtime.LockOSThread()
	for _, v := range volumes.All() {
		cs, raw := v.F.Inner()
		nbs := make([]mesh.Neighbours, len(raw))
		for k := range raw {
			nbs[k] = mesh.Neighbours(raw[k])
		}
		dst := make([][]mesh.Quad, len(cs))
		pass := func() {
			for k, c := range cs {
				dst[k] = mesh.Build(dst[k][:0], c, &nbs[k])
			}
		}
		pass() // warm: output slices grown, scratch pooled
		t0 := threadCPU()
		pass()
		reps := int(max(1, int64(sample)/max(1, threadCPU()-t0)))
		ns := make([]float64, samples)
		for i := range ns {
			t0 := threadCPU()
			for range reps {
				pass()
			}
			ns[i] = float64(threadCPU()-t0) / float64(reps*oursN)
		}
		fmt.Printf("%s %s %s %d %s\n", label, v.Name, stats(ns), oursN, oursFaces(cs, dst))
	}
}

// oursFaces counts the unit faces of the quads owned by blocks in the
// common region, as "FACE:KIND=N" terms sorted.
func oursFaces(cs []*voxel.Chunk, quads [][]mesh.Quad) string {
	counts := map[string]int{}
	for k := range cs {
		// Inner's order is [y][z][x] over chunk coordinates 1..2.
		cx, cz, cy := 1+k&1, 1+k>>1&1, 1+k>>2
		for _, q := range quads[k] {
			q.Blocks(func(x, y, z int) {
				x, y, z = cx*voxel.ChunkSize+x, cy*voxel.ChunkSize+y, cz*voxel.ChunkSize+z
				if x < hiBgm && y < hiBgm && z < hiBgm { // all are ≥ lo
					counts[fmt.Sprintf("%s:%d", q.Face(), q.Block())]++
				}
			})
		}
	}
	return faceString(counts)
}

func faceString(counts map[string]int) string {
	if len(counts) == 0 {
		return "none"
	}
	var terms []string
	for k, n := range counts {
		terms = append(terms, fmt.Sprintf("%s=%d", k, n))
	}
	sort.Strings(terms)
	return strings.Join(terms, ",")
}

func stats(ns []float64) string {
	s := slices.Clone(ns)
	slices.Sort(s)
	return fmt.Sprintf("%.5f %.5f", s[0], s[len(s)/2])
}

// threadCPU is this OS thread's CPU time in ns (the C++ driver uses the
// same clock).
func threadCPU() int64 {
	const clockThreadCPUTime = 3 // CLOCK_THREAD_CPUTIME_ID
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}

// result is one line of -time or of the C++ driver.
type result struct {
	side, volume string
	best, median float64
	faces        string
}

// printReport reads the rounds' lines and prints, per volume and side, the
// best over rounds; the ratios are ours ÷ bgm of those bests, with the
// range of per-round ratios (a round's ours against the bgm run beside it).
func printReport(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var rs []result
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 6 {
			continue
		}
		b, err1 := strconv.ParseFloat(fs[2], 64)
		m, err2 := strconv.ParseFloat(fs[3], 64)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("bad line %q", sc.Text())
		}
		faces := fs[5]
		if fs[0] == "bgm" {
			faces = bgmFaceString(faces)
		}
		rs = append(rs, result{fs[0], fs[1], b, m, faces})
	}
	if err := sc.Err(); err != nil {
		return err
	}
	var order, sides []string
	best := map[[2]string]float64{}
	rounds := map[[2]string][]float64{}
	faces := map[[2]string]string{}
	for _, r := range rs {
		if !slices.Contains(order, r.volume) {
			order = append(order, r.volume)
		}
		if r.side != "bgm" && !slices.Contains(sides, r.side) {
			sides = append(sides, r.side)
		}
		k := [2]string{r.side, r.volume}
		if b, ok := best[k]; !ok || r.best < b {
			best[k] = r.best
		}
		rounds[k] = append(rounds[k], r.best)
		if f, ok := faces[k]; ok && f != r.faces {
			return fmt.Errorf("%s %s: faces differ between rounds", r.side, r.volume)
		}
		faces[k] = r.faces
	}
	slices.Sort(sides) // ours-v1, ours-v3
	fmt.Printf("| volume | faces (common 62³) |")
	for _, s := range sides {
		fmt.Printf(" ours %s | ÷ bgm (rounds) |", strings.TrimPrefix(s, "ours-"))
	}
	fmt.Printf(" bgm |\n|---|---|")
	for range sides {
		fmt.Printf("---|---|")
	}
	fmt.Printf("---|\n")
	bad := false
	for _, v := range order {
		bk := [2]string{"bgm", v}
		fmt.Printf("| %s | %s |", v, faceTotal(faces[bk]))
		for _, s := range sides {
			k := [2]string{s, v}
			if faces[k] != faces[bk] {
				bad = true
				fmt.Fprintf(os.Stderr, "%s %s: faces differ\n  ours %s\n  bgm  %s\n", s, v, faces[k], faces[bk])
			}
			lo, hi := math.Inf(1), math.Inf(-1)
			for i := range min(len(rounds[k]), len(rounds[bk])) {
				r := rounds[k][i] / rounds[bk][i]
				lo, hi = min(lo, r), max(hi, r)
			}
			fmt.Printf(" %s | %s (%s–%s) |", ns(best[k]), ratio(best[k]/best[bk]), ratio(lo), ratio(hi))
		}
		fmt.Printf(" %s |\n", ns(best[bk]))
	}
	if bad {
		return fmt.Errorf("faces differ")
	}
	fmt.Printf("\nfaces identical on every volume (per direction and kind); rounds: %d\n", len(rounds[[2]string{"bgm", order[0]}]))
	return nil
}

// bgmFaceString rewrites the driver's "F:KIND=N" (F = bgm's face index)
// in our face names, sorted like ours.
func bgmFaceString(s string) string {
	counts := map[string]int{}
	if s != "none" {
		for _, t := range strings.Split(s, ",") {
			var f, kind, n int
			if _, err := fmt.Sscanf(t, "%d:%d=%d", &f, &kind, &n); err != nil || f < 0 || f >= len(bgmFaces) {
				return "bad:" + s
			}
			counts[fmt.Sprintf("%s:%d", bgmFaces[f], kind)] += n
		}
	}
	return faceString(counts)
}

func faceTotal(s string) string {
	total := 0
	if s != "none" {
		for _, t := range strings.Split(s, ",") {
			n, _ := strconv.Atoi(t[strings.IndexByte(t, '=')+1:])
			total += n
		}
	}
	return strconv.Itoa(total)
}

func ns(x float64) string {
	switch {
	case x >= 1:
		return fmt.Sprintf("%.2f", x)
	case x >= 0.01:
		return fmt.Sprintf("%.3f", x)
	}
	return fmt.Sprintf("%.4f", x)
}

func ratio(x float64) string {
	if x < 0.01 {
		return fmt.Sprintf("%.3f", x)
	}
	return fmt.Sprintf("%.2f", x)
}
