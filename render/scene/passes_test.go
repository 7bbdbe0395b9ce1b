package scene

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParsePassesRoundTrips(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Passes
		name string
	}{
		{"", Passes{}, "base"},
		{"base", Passes{}, "base"},
		{"prepass=off", Passes{DepthPrepass: Off}, "prepass=off"},
		{"prepass=on", Passes{DepthPrepass: On}, "prepass=on"},
		{"prepass=auto", Passes{}, "base"},
		{"farprepass=off, farsort", Passes{NoFarPrepass: true, FarSort: true}, "farprepass=off,farsort"},
		{"farprepass=on", Passes{}, "base"},
		{"direct,lean,vfog", Passes{Direct: true, Lean: true, VertexFog: true}, "direct,lean,vfog"},
		{"vfog,direct=off", Passes{VertexFog: true}, "vfog"},
		{"shadow1,lean", Passes{ShadowOneTap: true, Lean: true}, "lean,shadow1"},
		{"cullfar,shadow1", Passes{ShadowOneTap: true, CullFar: true}, "shadow1,cullfar"},
		{"shadowskip,pack,fshadow", Passes{FragShadow: true, Pack: true, ShadowSkip: true}, "fshadow,pack,shadowskip"},
	} {
		p, err := ParsePasses(c.in)
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, p, c.in)
		assert.Equal(t, c.name, p.String(), c.in)
		back, err := ParsePasses(p.String())
		require.NoError(t, err)
		assert.Equal(t, p, back, "String reads back")
	}
}

func TestParsePassesRefusesBadWords(t *testing.T) {
	for _, in := range []string{"prepass", "prepass=maybe", "direct=yes", "fast", "lean,lean", "base,direct"} {
		_, err := ParsePasses(in)
		assert.Error(t, err, in)
	}
}

// Every on/off word is in the help's list, sets its own field alone, reads
// =off as off, and comes back from String.
func TestEverySwitchWordIsListedAndRoundTrips(t *testing.T) {
	var all Passes
	for _, sw := range all.switches() {
		assert.Contains(t, PassWords, ", "+sw.word, "PassWords lists %s", sw.word)
		p, err := ParsePasses(sw.word)
		require.NoError(t, err, sw.word)
		want := Passes{}
		for _, o := range want.switches() {
			if o.word == sw.word {
				*o.on = true
			}
		}
		assert.Equal(t, want, p, sw.word)
		assert.Equal(t, sw.word, p.String())
		off, err := ParsePasses(sw.word + "=off")
		require.NoError(t, err)
		assert.Equal(t, Passes{}, off, sw.word+"=off")
	}
}
