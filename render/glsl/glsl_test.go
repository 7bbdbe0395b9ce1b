package glsl

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDialectsShareTheTextUnderTheirOwnVersion(t *testing.T) {
	d := Source(Desktop, []string{"FAR_MASK"}, WorldFrag)
	e := Source(ES, []string{"FAR_MASK"}, WorldFrag)
	assert.True(t, strings.HasPrefix(d, "#version 410 core\n"))
	assert.True(t, strings.HasPrefix(e, "#version 300 es\n"))
	assert.NotContains(t, d, "#define LEAN", "the desktop picks LEAN per pass profile itself")
	assert.Contains(t, e, "precision highp sampler2DShadow;", "ES has no default precision for it")
	assert.Equal(t, strings.SplitN(d, "#define PALETTE_SIZE", 2)[1], strings.SplitN(e, "#define PALETTE_SIZE", 2)[1])
}

func TestFloatConstantsHaveAPoint(t *testing.T) {
	// GLSL ES converts no int to float: FAR_BAY_W (3 m) must read 3.0.
	for _, name := range []string{"LAMP_SPACING", "POS_STEP", "ALONG_STEP", "ACROSS_STEP", "HALF_WIDTH_STEP", "SIGNAL_LAMP_STEP", "FAR_FLOOR_H", "FAR_BAY_W"} {
		m := regexp.MustCompile(`#define ` + name + ` (\S+)`).FindStringSubmatch(Header(ES))
		if assert.NotNil(t, m, name) {
			assert.Regexp(t, `[.e]`, m[1], name)
		}
	}
	assert.Equal(t, "3.0", fl(3))
	assert.Equal(t, "0.00390625", fl(1.0/256))
}
