package netsync

import (
	"context"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The server records each tick's CPU time.
func TestTickCPUIsRecorded(t *testing.T) {
	s := startServer(t, nil)
	c := dial(t, s.clientConfig())
	firstDefault(t, c) // delivered by a tick
	// The tick records its CPU after it sends: a call on the tick
	// goroutine runs between ticks, so once it returns that one is in.
	require.NoError(t, s.on(context.Background(), func() {}))
	var m dto.Metric
	require.NoError(t, s.metrics.tickCPU.Write(&m))
	assert.Positive(t, m.GetHistogram().GetSampleCount())
}
