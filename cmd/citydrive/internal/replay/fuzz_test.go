package replay

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The committed corpus (testdata/fuzz) holds a short drive with every
// kind of record, its body alone, and damaged copies; -write-corpus
// writes it again from corpusDrive (after a format change).
var writeCorpus = flag.Bool("write-corpus", false, "write the fuzz corpus in testdata/fuzz")

// corpusDrive is a small recording with every record kind in it.
func corpusDrive() *Recorder {
	steps := drive(rand.New(rand.NewPCG(11, 12)), 600)
	steps[10].places = []Place{{Pos: [2]float64{1, 2}, Dir: [2]float64{0, 1}, Reset: true}}
	steps[20].clock = &Clock{World: 1e6, Rate: 1}
	steps[24].hasCars, steps[24].remote = true, []Car{{Player: 3, X: -100, Y: 250, Z: 7, Heading: 900, Speed: -40}}
	steps[30].obst = []Obstacle{{Centre: [2]float64{1, 1}, Axis: [2]float64{1, 0}, Half: [2]float64{1, 2}, Y0: 0, Y1: 2, Kind: 1}}
	steps[31].blocks = [][2]int64{{-5, 6}}
	steps[40].incidents = []Kind{Contact, Stuck}
	return record(steps)
}

func TestWriteFuzzCorpus(t *testing.T) {
	if !*writeCorpus {
		t.Skip("-write-corpus writes testdata/fuzz")
	}
	r := corpusDrive()
	file := r.File()
	r.flush()
	entries := map[string]map[string][]byte{
		"FuzzParse": {"drive": file, "cut-short": file[:len(file)-9], "header-only": file[:40]},
		"FuzzBody":  {"drive": append(r.body, opEnd), "runs": []byte{runBit | runCounted | fieldsAll, 3, 4, 6, 9, runBit, runBit | runCounted, 7, opEnd}},
	}
	for fuzz, files := range entries {
		dir := filepath.Join("testdata", "fuzz", fuzz)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		for name, b := range files {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", b), 0o644))
		}
	}
}

// A file of any bytes is a replay or an error, never a panic or an
// allocation past the limits; a replay it reads plays to its end.
func FuzzParse(f *testing.F) {
	f.Add(corpusDrive().File())
	f.Fuzz(func(t *testing.T, data []byte) {
		rp, err := Parse(data)
		if err != nil {
			return
		}
		playThrough(t, rp)
	})
}

// The body on its own, where the checksum does not stand in the
// fuzzer's way.
func FuzzBody(f *testing.F) {
	r := corpusDrive()
	r.flush()
	f.Add(append(r.body, opEnd))
	f.Fuzz(func(t *testing.T, body []byte) {
		h := testHeader
		h.Steps = 0
		rp, err := parseBody(h, body)
		if err == nil {
			playThrough(t, rp)
			return
		}
		// One whose only fault is the count in the header is whole.
		p := (&Replay{Header: h, body: body}).Player()
		for {
			if _, _, more := p.Next(); !more {
				break
			}
		}
		if p.Err() == nil {
			h.Steps = p.n
			rp, err = parseBody(h, body)
			require.NoError(t, err)
			playThrough(t, rp)
		}
	})
}

func playThrough(t *testing.T, rp *Replay) {
	p := rp.Player()
	n := uint64(0)
	for {
		b, _, more := p.Next()
		require.Equal(t, n, b.N)
		require.LessOrEqual(t, len(b.Remote), MaxRemote)
		o, bl := p.Touched()
		require.LessOrEqual(t, len(o), MaxTouched)
		require.LessOrEqual(t, len(bl), MaxTouched)
		if !more {
			break
		}
		n++
	}
	require.NoError(t, p.Err())
	require.Equal(t, rp.Steps, n)
}
