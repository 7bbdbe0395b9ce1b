package main

import (
	"fmt"
	"math"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"

	"citydrive/roadgraph/world"
)

// defaultSeed is every command's -seed default, so that a server, its
// players, the bots and the tools agree on the world out of the box.
const defaultSeed = 412

// pointFlag is an "x,z" world position in metres.
type pointFlag struct {
	p   world.Vec2
	set bool
}

func (f *pointFlag) String() string {
	if f == nil || !f.set {
		return ""
	}
	return fmt.Sprintf("%g,%g", f.p.X, f.p.Z)
}

// maxCoord keeps positions inside the lattice's id range with room to spare.
const maxCoord = 1e9

func (f *pointFlag) Set(s string) error {
	xs, zs, ok := strings.Cut(s, ",")
	if !ok {
		return fmt.Errorf("want x,z in metres, got %q", s)
	}
	x, err := strconv.ParseFloat(strings.TrimSpace(xs), 64)
	if err != nil {
		return fmt.Errorf("bad x in %q", s)
	}
	z, err := strconv.ParseFloat(strings.TrimSpace(zs), 64)
	if err != nil {
		return fmt.Errorf("bad z in %q", s)
	}
	if math.IsNaN(x) || math.IsNaN(z) || math.Abs(x) > maxCoord || math.Abs(z) > maxCoord {
		return fmt.Errorf("position %q out of range (|x|, |z| ≤ %g m)", s, maxCoord)
	}
	f.p, f.set = world.Vec2{X: x, Z: z}, true
	return nil
}

// startCPUProfile starts a CPU profile into path ("" : none) and returns
// what stops it.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
