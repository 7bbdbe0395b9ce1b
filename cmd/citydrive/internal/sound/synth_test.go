package sound

import (
	"encoding/binary"
	"io"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// render runs a fresh synthesiser at p for settle seconds (the glide), then
// returns the next secs seconds of samples.
func render(p Params, settle, secs float64) []float32 {
	s := New()
	s.Set(p)
	s.Fill(make([]float32, int(settle*SampleRate)))
	out := make([]float32, int(secs*SampleRate))
	s.Fill(out)
	return out
}

// pitch estimates the fundamental (Hz) by autocorrelation over lags for
// minHz..maxHz: the shortest lag whose normalised correlation is within 5%
// of the best (so a period's multiples do not win).
func pitch(x []float32, minHz, maxHz float64) float64 {
	lo, hi := int(SampleRate/maxHz), int(SampleRate/minHz)
	corr := make([]float64, hi+1)
	best := 0.0
	for lag := lo; lag <= hi; lag++ {
		var num, e0, e1 float64
		for i := 0; i+lag < len(x); i++ {
			a, b := float64(x[i]), float64(x[i+lag])
			num += a * b
			e0 += a * a
			e1 += b * b
		}
		corr[lag] = num / math.Sqrt(e0*e1+1e-12)
		best = max(best, corr[lag])
	}
	for lag := lo; lag <= hi; lag++ {
		// a local peak near the best
		if corr[lag] >= 0.95*best && (lag == hi || corr[lag] >= corr[lag+1]) && (lag == lo || corr[lag] >= corr[lag-1]) {
			return SampleRate / float64(lag)
		}
	}
	return 0
}

func rms(x []float32) float64 {
	e := 0.0
	for _, v := range x {
		e += float64(v) * float64(v)
	}
	return math.Sqrt(e / float64(len(x)))
}

// hfRMS is the RMS of the first difference: high-frequency energy.
func hfRMS(x []float32) float64 {
	e := 0.0
	for i := 1; i < len(x); i++ {
		d := float64(x[i] - x[i-1])
		e += d * d
	}
	return math.Sqrt(e / float64(len(x)-1))
}

func TestRPMFollowsSpeedThroughTheGears(t *testing.T) {
	assert.Equal(t, IdleRPM, RPM(0, 0, 0))
	assert.Greater(t, RPM(0, 1, 0), IdleRPM, "the throttle revs a standing engine")
	assert.Equal(t, RPM(-5, 0, 0), RPM(5, 0, 0), "reverse sounds like forward")
	lo := 0.0
	for g, top := range gearTops {
		assert.Equal(t, g, Gear(lo+0.5*(top-lo), 0), "accelerating from first")
		a, b := RPM(lo+0.2*(top-lo), 0, g), RPM(lo+0.8*(top-lo), 0, g)
		assert.Greater(t, b, a, "gear %d: faster is higher", g+1)
		assert.InDelta(t, RedlineRPM, RPM(top, 0, g), 1, "gear %d shifts at the redline", g+1)
		if g+1 < len(gearTops) {
			up := Gear(top+0.01, g)
			assert.Equal(t, g+1, up)
			assert.Less(t, RPM(top+0.01, 0, up), RPM(top, 0, g)-2000, "an up-shift drops the revs")
		}
		lo = top
	}
	assert.LessOrEqual(t, RPM(200, 1, Gear(200, 0)), RedlineRPM)
	assert.Equal(t, 0, Gear(0, 4), "stopping shifts all the way down")
}

func TestGearsDoNotHuntAtAShiftPoint(t *testing.T) {
	g := Gear(12.5, 0)
	require.Equal(t, 1, g)
	for _, v := range []float64{11.9, 12.1, 11.5, 12.4, 10.5} {
		g = Gear(v, g)
		assert.Equal(t, 1, g, "at %g m/s", v)
	}
	assert.Equal(t, 0, Gear(9.9, g), "well below the shift point it shifts down")
}

func TestPitchRisesWithSpeed(t *testing.T) {
	cases := []struct{ slow, fast float64 }{{2, 10}, {14, 20}, {25, 31}}
	for _, c := range cases {
		ps := pitch(render(Params{Speed: c.slow, Throttle: 0.5, Volume: 1}, 0.3, 0.25), 20, 400)
		pf := pitch(render(Params{Speed: c.fast, Throttle: 0.5, Volume: 1}, 0.3, 0.25), 20, 400)
		assert.InEpsilon(t, EngineHz(RPM(c.slow, 0.5, Gear(c.slow, 0))), ps, 0.04, "at %g m/s", c.slow)
		assert.InEpsilon(t, EngineHz(RPM(c.fast, 0.5, Gear(c.fast, 0))), pf, 0.04, "at %g m/s", c.fast)
		assert.Greater(t, pf, ps*1.2, "%g m/s sounds higher than %g m/s", c.fast, c.slow)
	}
}

func TestThrottleIsLouder(t *testing.T) {
	off := rms(render(Params{Speed: 15, Throttle: 0, Volume: 1}, 0.3, 0.3))
	on := rms(render(Params{Speed: 15, Throttle: 1, Volume: 1}, 0.3, 0.3))
	assert.Greater(t, on, off*1.5)
	assert.Greater(t, off, 0.03, "the engine is heard off throttle")
}

func TestVolumeZeroIsSilent(t *testing.T) {
	for _, v := range render(Params{Speed: 30, Throttle: 1, Slip: 1}, 0.3, 0.1) {
		require.Zero(t, v)
	}
	half := rms(render(Params{Speed: 15, Throttle: 1, Volume: 0.5}, 0.3, 0.3))
	full := rms(render(Params{Speed: 15, Throttle: 1, Volume: 1}, 0.3, 0.3))
	assert.InEpsilon(t, 0.5, half/full, 0.02)
}

func TestTyresOnlyWhenSliding(t *testing.T) {
	grip := render(Params{Speed: 20, Throttle: 0.3, Volume: 1}, 0.3, 0.3)
	slide := render(Params{Speed: 20, Throttle: 0.3, Slip: 1, Volume: 1}, 0.3, 0.3)
	assert.Greater(t, hfRMS(slide), 3*hfRMS(grip), "a slide adds a high squeal")
	// The squeal sits near its band centre: the slide's extra signal has
	// its pitch there.
	diff := make([]float32, len(slide))
	for i := range slide {
		diff[i] = slide[i] - grip[i]
	}
	assert.InEpsilon(t, tyreCentre, pitch(diff, 600, 2500), 0.15)

	// After the slide, the squeal dies away within a fraction of a second.
	s := New()
	s.Set(Params{Speed: 20, Throttle: 0.3, Slip: 1, Volume: 1})
	s.Fill(make([]float32, SampleRate/2))
	s.Set(Params{Speed: 20, Throttle: 0.3, Volume: 1})
	s.Fill(make([]float32, SampleRate/2))
	after := make([]float32, len(grip))
	s.Fill(after)
	assert.Less(t, hfRMS(after), 1.2*hfRMS(grip))
}

// A sudden change of every parameter glides: no sample-to-sample step is
// larger than the steady sound's own largest steps.
func TestChangesDoNotClick(t *testing.T) {
	s := New()
	loud := Params{Speed: 40, Throttle: 1, Slip: 1, Volume: 1}
	s.Set(loud)
	steady := make([]float32, SampleRate/2)
	s.Fill(steady)
	maxStep := func(x []float32, prev float32) float64 {
		m := 0.0
		for _, v := range x {
			m = max(m, math.Abs(float64(v-prev)))
			prev = v
		}
		return m
	}
	limit := maxStep(steady[1:], steady[0])
	for _, p := range []Params{{}, loud, {Speed: 2, Volume: 1}, {Speed: 55, Throttle: 1, Volume: 1}} {
		last := steady[len(steady)-1]
		s.Set(p)
		s.Fill(steady)
		assert.LessOrEqual(t, maxStep(steady, last), limit*1.05, "after Set(%+v)", p)
	}
}

func TestSetIgnoresNonsense(t *testing.T) {
	s := New()
	s.Set(Params{Speed: math.NaN(), Throttle: math.Inf(1), Slip: -3, Volume: 7})
	out := make([]float32, 4096)
	s.Fill(out)
	for _, v := range out {
		require.False(t, math.IsNaN(float64(v)))
		require.LessOrEqual(t, math.Abs(float64(v)), 1.0)
	}
}

func TestStreamIsLittleEndianFloats(t *testing.T) {
	p := Params{Speed: 10, Throttle: 1, Volume: 1}
	a := New()
	a.Set(p)
	want := make([]float32, 1000)
	a.Fill(want)

	b := New()
	b.Set(p)
	raw := make([]byte, 4*1000+3) // a partial sample is not written
	n, err := io.ReadFull(NewStream(b), raw[:4*1000])
	require.NoError(t, err)
	require.Equal(t, 4000, n)
	for i, w := range want {
		require.Equal(t, w, math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])), "sample %d", i)
	}
	n, _ = NewStream(b).Read(raw[:3])
	assert.Zero(t, n)
}

func TestStreamAllocatesNothing(t *testing.T) {
	s := New()
	st := NewStream(s)
	buf := make([]byte, 8192)
	allocs := testing.AllocsPerRun(20, func() {
		s.Set(Params{Speed: 12, Throttle: 0.5, Volume: 1})
		_, _ = st.Read(buf)
	})
	assert.Zero(t, allocs)
}

func BenchmarkFill(b *testing.B) {
	s := New()
	s.Set(Params{Speed: 20, Throttle: 1, Slip: 0.5, Volume: 1})
	buf := make([]float32, 1024)
	b.SetBytes(int64(len(buf)) * BytesPerSample)
	for b.Loop() {
		s.Fill(buf)
	}
}
