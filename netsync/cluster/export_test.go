package cluster

import (
	"strconv"
	"time"

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

// ConnTLS reports whether both of n's NATS connections are TLS.
func ConnTLS(n *Node) bool {
	_, errJS := n.js.TLSConnectionState()
	_, errCars := n.cars.TLSConnectionState()
	return errJS == nil && errCars == nil
}

// RemoteCarsRejected is how many other servers' car snapshots n's car
// rule dropped.
func RemoteCarsRejected(n *Node) float64 { return counter(n.carsX.rejected) }

// CarSubject is where seed's cluster publishes the cars of region r.
func CarSubject(seed uint64, r Region) string {
	return carSubject("citydrive."+strconv.FormatUint(seed, 10), r)
}

// OwnKey and RegionFilter are the bucket keys of region r's lease and
// chunks.
func OwnKey(r Region) string { return ownKey(r) }

func RegionFilter(r Region) string { return regionFilter(r) }

// Dead lists the server slots n counts dead now.
func Dead(n *Node) []uint32 {
	n.dir.mu.RLock()
	defer n.dir.mu.RUnlock()
	var out []uint32
	for s, d := range n.dir.dead {
		if d {
			out = append(out, s)
		}
	}
	return out
}

// Fresh reports whether n's own heartbeat is recent enough to write as an
// owner.
func Fresh(n *Node) bool { return n.lease.fresh() }

// ConnectedTo names the NATS nodes n's edit and car connections are on.
func ConnectedTo(n *Node) (edits, cars string) {
	return n.js.ConnectedServerName(), n.cars.ConnectedServerName()
}

// StallWithin is how long a server stays connected to a silent NATS node
// at most (the default TTL's).
var StallWithin = stallWithin(2 * time.Second)
