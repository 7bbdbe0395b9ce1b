package cluster

import (
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// WithPause makes the node Join starts pausable (see Pause).
func WithPause(o *Options) *Pause {
	o.pause = newPause()
	return o.pause
}

// FencedWrites is how many of n's writes the lease fence refused.
func FencedWrites(n *Node) float64 { return counter(n.world.fenced) }

// Forwarded is how many edits n sent on to their region's owner.
func Forwarded(n *Node) float64 { return counter(n.world.forwarded) }

func counter(c prometheus.Counter) float64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		return -1
	}
	return m.GetCounter().GetValue()
}

// WatchStarts is how many times n's one watch was made.
func WatchStarts(n *Node) float64 { return counter(n.world.consumerStarts) }
