package game

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTyreSlip(t *testing.T) {
	cases := []struct {
		name                           string
		speed, yaw, sideways, brake, w float64
	}{
		{"straight and gripping", 30, 0, 0, 0, 0},
		{"a gentle bend", 20, 0.2, 0, 0, 0},          // 4 m/s²
		{"a hard corner squeals", 20, 0.45, 0, 0, 1}, // 9 m/s²
		{"halfway", 14, 0.5, 0, 0, 0.5},              // 7 m/s²
		{"reversing through a corner counts too", -20, -0.45, 0, 0, 1},
		{"sliding sideways", 5, 0, 3, 0, 1},
		{"a small drift", 5, 0, 0.5, 0, 0},
		{"hard braking at speed skids", 20, 0, 0, 1, skidSlip},
		{"braking slowly does not", 5, 0, 0, 1, 0},
	}
	for _, c := range cases {
		assert.InDelta(t, c.w, tyreSlip(c.speed, c.yaw, c.sideways, c.brake), 1e-9, c.name)
	}
}
