package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// -password wins; without it, $CITYDRIVE_PASSWORD (join and bots alike).
func TestJoinPasswordFromFlagOrEnvironment(t *testing.T) {
	t.Setenv("CITYDRIVE_PASSWORD", "from-env")
	assert.Equal(t, "from-flag", joinPassword("from-flag"))
	assert.Equal(t, "from-env", joinPassword(""))
	t.Setenv("CITYDRIVE_PASSWORD", "")
	assert.Empty(t, joinPassword(""))
}
