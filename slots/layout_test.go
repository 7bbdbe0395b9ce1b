package slots

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The one buffer holds the near slots, then the far slots, then the
// dynamic region.
func TestLayoutOffsets(t *testing.T) {
	l := Layout{Near: Config{Slots: 3, VertsPerSlot: 100, DynamicVerts: 50}, Far: Config{Slots: 4, VertsPerSlot: 40}}
	require.NoError(t, l.Validate())
	assert.Equal(t, 300, l.FarFirst())
	assert.Equal(t, 460, l.DynamicFirst())
	assert.Equal(t, 510, l.TotalVerts())
	assert.Equal(t, 510*BytesPerVertex, l.Bytes())

	l.Far = Config{}
	require.NoError(t, l.Validate(), "no far tier")
	assert.Equal(t, 300, l.DynamicFirst())
	assert.Equal(t, 350, l.TotalVerts())
}

// The defaults are the reference's near tier plus 1,024 far slots of 960
// vertices: 55.1 MB at 24 bytes a vertex (the reference: 78.7 MB).
func TestDefaultLayout(t *testing.T) {
	l := DefaultLayout()
	require.NoError(t, l.Validate())
	assert.Equal(t, DefaultConfig(), l.Near)
	assert.Equal(t, (180*7200+1024*960+16200)*24, l.Bytes())
}

func TestLayoutValidate(t *testing.T) {
	ok := DefaultLayout()
	bad := map[string]func(*Layout){
		"no near slots":     func(l *Layout) { l.Near.Slots = 0 },
		"tiny far slots":    func(l *Layout) { l.Far.VertsPerSlot = MinVertsPerSlot - 1 },
		"too many far":      func(l *Layout) { l.Far.Slots = MaxSlots + 1 },
		"far dynamic verts": func(l *Layout) { l.Far.DynamicVerts = 1 },
	}
	for name, mutate := range bad {
		l := ok
		mutate(&l)
		assert.Error(t, l.Validate(), name)
	}
	l := ok
	l.Far.VertsPerSlot = 0
	assert.ErrorContains(t, l.Validate(), "far tier: slots: vertices per slot", "a far tier's error says which tier")
}
