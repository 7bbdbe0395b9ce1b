package bots

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync"
)

// passwordGate admits the Joins that give its password and counts them.
type passwordGate struct {
	password string
	mu       sync.Mutex
	admitted []string // the names let in
}

func (g *passwordGate) Admit(_ uint64, name, password string) string {
	if password != g.password {
		return "wrong join password"
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.admitted = append(g.admitted, name)
	return ""
}

// Bots give Options.Password in their Join: a password-protected server
// lets them in with it and refuses them, at once and with its sentence,
// without it.
func TestBotsJoinAPasswordProtectedServer(t *testing.T) {
	gate := &passwordGate{password: "sesame"}
	s := startServer(t, func(c *netsync.ServerConfig) { c.Gate = gate })
	o := Options{Addr: s.Addr().String(), Fingerprint: s.Fingerprint(), Seed: 42, N: 2,
		Duration: time.Second, Radius: 1, Spread: 1, EditEvery: -1}

	rep, err := Run(context.Background(), o)
	require.NoError(t, err)
	require.Len(t, rep.Bots, 2)
	for i, b := range rep.Bots {
		var re *netsync.RefusedError
		require.ErrorAs(t, b.Err, &re, "bot %d without the password", i)
		assert.True(t, re.ByServer)
		assert.Contains(t, re.Reason, "wrong join password")
	}
	assert.Less(t, rep.Duration, dialPatience, "a refusal is not retried")

	o.Password = "sesame"
	rep, err = Run(context.Background(), o)
	require.NoError(t, err)
	for i, b := range rep.Bots {
		require.NoError(t, b.Err, "bot %d with the password", i)
	}
	gate.mu.Lock()
	defer gate.mu.Unlock()
	assert.ElementsMatch(t, []string{"bot-0", "bot-1"}, gate.admitted)
}
