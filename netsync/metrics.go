package netsync

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metric names, part of the operations interface (docs/networking.md).
const (
	MetricPlayers            = "citydrive_players"
	MetricTick               = "citydrive_tick_duration_seconds"
	MetricTickQuantiles      = "citydrive_tick_quantile_seconds"
	MetricTickCPU            = "citydrive_tick_cpu_seconds"
	MetricClientBytesIn      = "citydrive_client_bytes_in_total"
	MetricClientBytesOut     = "citydrive_client_bytes_out_total"
	MetricChunksDelivered    = "citydrive_chunks_delivered_total"
	MetricChunkDrops         = "citydrive_chunk_drops_total"
	MetricEditsApplied       = "citydrive_edits_applied_total"
	MetricEditsRejected      = "citydrive_edits_rejected_total"
	MetricDatagramsDropped   = "citydrive_datagrams_dropped_total"
	MetricBudgetExhausted    = "citydrive_delivery_budget_exhausted_total"
	MetricSubsCoalesced      = "citydrive_subscribes_coalesced_total"
	MetricSubsApplied        = "citydrive_subscribes_applied_total"
	MetricTicks              = "citydrive_ticks_total"
	MetricCarsRejected       = "citydrive_car_snapshots_rejected_total"
	MetricTickRate           = "citydrive_tick_rate_hz"
	MetricHandshakesBusy     = "citydrive_handshakes_refused_busy_total"
	MetricPlayersAddrFull    = "citydrive_players_refused_address_total"
	MetricPlayersRefusedGate = "citydrive_players_refused_gate_total"
	MetricOverBudget         = "citydrive_messages_over_budget_total"
	MetricIdleClosed         = "citydrive_idle_closed_total"
)

// TickBuckets are the tick-duration histogram's buckets (seconds): fine
// around the 10 ms target so a p99 can be read off them.
var TickBuckets = []float64{
	0.0001, 0.00025, 0.0005, 0.00075, 0.001, 0.0015, 0.002, 0.003, 0.004, 0.005,
	0.006, 0.007, 0.008, 0.009, 0.010, 0.0125, 0.015, 0.020, 0.025, 0.033, 0.050, 0.100, 0.250,
}

const (
	kindDefault = iota
	kindEdits
)

type metrics struct {
	players         prometheus.GaugeFunc
	tick            prometheus.Histogram
	tickQ           prometheus.Summary
	tickCPU         prometheus.Histogram
	deliveredVec    *prometheus.CounterVec
	delivered       [2]prometheus.Counter
	editsApplied    prometheus.Counter
	editsRejected   *prometheus.CounterVec
	dropped         prometheus.CounterFunc
	budgetExhausted prometheus.Counter
	drops           prometheus.Counter
	subsCoalesced   prometheus.Counter
	subsApplied     prometheus.Counter
	ticks           prometheus.Counter
	carsRejected    prometheus.Counter
	tickRate        prometheus.GaugeFunc
	handshakesBusy  *prometheus.CounterVec
	// playersRefusedAddr counts joins refused by MaxPlayersPerAddr.
	playersRefusedAddr prometheus.Counter
	// playersRefusedGate counts joins the Gate refused (ban, allow-list,
	// password).
	playersRefusedGate prometheus.Counter
	overBudget         [numBudgetKinds]prometheus.Counter
	overBudgetVec      *prometheus.CounterVec
	idleClosed         prometheus.Counter
	clients            *clientBytes
}

func newMetrics(s *Server) *metrics {
	m := &metrics{
		players: prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: MetricPlayers, Help: "Connected players (handshake completed).",
		}, func() float64 { return float64(s.players.Load()) }),
		tick: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: MetricTick, Help: "Wall time of one server tick.", Buckets: TickBuckets,
		}),
		tickCPU: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: MetricTickCPU, Help: "CPU time of one server tick (its thread's, Linux only): the tick's work without the time a busy machine kept it waiting.", Buckets: TickBuckets,
		}),
		tickQ: prometheus.NewSummary(prometheus.SummaryOpts{
			Name: MetricTickQuantiles, Help: "Tick duration quantiles over the last minute.",
			Objectives: map[float64]float64{0.5: 0.01, 0.99: 0.001, 0.999: 0.0001},
			MaxAge:     time.Minute, AgeBuckets: 6,
		}),
		deliveredVec: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricChunksDelivered, Help: "Chunks delivered to clients, by kind (default: regenerate from the seed; edits: sparse edits).",
		}, []string{"kind"}),
		editsApplied: prometheus.NewCounter(prometheus.CounterOpts{
			Name: MetricEditsApplied, Help: "Edits committed, broadcast and acknowledged.",
		}),
		editsRejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricEditsRejected, Help: "Edit requests rejected, by reason (area, reach, rate, world).",
		}, []string{"reason"}),
		dropped: prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: MetricDatagramsDropped, Help: "Car datagrams that could not be sent.",
		}, func() float64 { return float64(s.datagramsDropped.Load()) }),
		budgetExhausted: prometheus.NewCounter(prometheus.CounterOpts{
			Name: MetricBudgetExhausted, Help: "Ticks whose chunk-delivery time budget ran out before every client was served.",
		}),
		drops: prometheus.NewCounter(prometheus.CounterOpts{
			Name: MetricChunkDrops, Help: "ChunkDrop messages sent: removals a client cannot work out from its own Subscribe.",
		}),
		subsCoalesced: prometheus.NewCounter(prometheus.CounterOpts{
			Name: MetricSubsCoalesced, Help: "Subscribes replaced by a newer one before they were applied (the per-client Subscribe budget).",
		}),
		subsApplied: prometheus.NewCounter(prometheus.CounterOpts{
			Name: MetricSubsApplied, Help: "Subscribes applied (one cylinder rebuild each).",
		}),
		ticks: prometheus.NewCounter(prometheus.CounterOpts{
			Name: MetricTicks, Help: "Server ticks run.",
		}),
		tickRate: prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: MetricTickRate, Help: "Current tick rate: below the configured rate while the server slows time under load.",
		}, func() float64 { return float64(s.curHz.Load()) }),
		carsRejected: prometheus.NewCounter(prometheus.CounterOpts{
			Name: MetricCarsRejected, Help: "Car snapshots dropped as physically impossible (too fast, a jump, not finite).",
		}),
		handshakesBusy: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricHandshakesBusy, Help: "Connections refused as busy, by limit (server: all handshakes; addr: one address's; evicted: a half-open one whose slot went to another address).",
		}, []string{"limit"}),
		playersRefusedAddr: prometheus.NewCounter(prometheus.CounterOpts{
			Name: MetricPlayersAddrFull, Help: "Joins refused because their address had MaxPlayersPerAddr players already.",
		}),
		playersRefusedGate: prometheus.NewCounter(prometheus.CounterOpts{
			Name: MetricPlayersRefusedGate, Help: "Joins refused by the operator's rules: a banned key, the allow-list or the join password.",
		}),
		overBudgetVec: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricOverBudget, Help: "Client messages past their kind's per-client budget, by kind (clock: waited for, car: dropped, reset: refused).",
		}, []string{"kind"}),
		idleClosed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: MetricIdleClosed, Help: "Connections closed for sending neither car nor edit within IdleLimit.",
		}),
		clients: &clientBytes{s: s,
			in:  prometheus.NewDesc(MetricClientBytesIn, "QUIC bytes received from a client (all streams, datagrams and acknowledgements; no UDP/IP headers).", []string{"player"}, nil),
			out: prometheus.NewDesc(MetricClientBytesOut, "QUIC bytes sent to a client, retransmissions included (no UDP/IP headers).", []string{"player"}, nil),
		},
	}
	for k := range numBudgetKinds {
		m.overBudget[k] = m.overBudgetVec.WithLabelValues(k.String())
	}
	m.delivered[kindDefault] = m.deliveredVec.WithLabelValues("default")
	m.delivered[kindEdits] = m.deliveredVec.WithLabelValues("edits")
	for r := admitted + 1; r < numRejections; r++ {
		m.editsRejected.WithLabelValues(r.label())
	}
	return m
}

func (m *metrics) register(r prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{m.players, m.tick, m.tickQ, m.deliveredVec,
		m.tickCPU, m.editsApplied, m.editsRejected, m.dropped, m.budgetExhausted, m.drops, m.subsCoalesced, m.subsApplied, m.ticks, m.carsRejected, m.tickRate, m.handshakesBusy,
		m.playersRefusedAddr, m.playersRefusedGate, m.overBudgetVec, m.idleClosed, m.clients} {
		if err := r.Register(c); err != nil {
			return err
		}
	}
	return nil
}

func (m *metrics) observeTick(d time.Duration) {
	s := d.Seconds()
	m.ticks.Inc()
	m.tick.Observe(s)
	m.tickQ.Observe(s)
}

// observeTickCPU records the CPU time of one tick (its thread's).
func (m *metrics) observeTickCPU(d time.Duration) { m.tickCPU.Observe(d.Seconds()) }

// clientBytes reports each connected client's QUIC byte counters at scrape
// time, straight from quic-go's connection statistics, so nothing is
// counted on the hot path and a departed player's series disappear.
type clientBytes struct {
	s       *Server
	in, out *prometheus.Desc
}

func (c *clientBytes) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.in
	ch <- c.out
}

func (c *clientBytes) Collect(ch chan<- prometheus.Metric) {
	for _, st := range c.s.ClientStats() {
		id := strconv.FormatUint(uint64(st.Player), 10)
		ch <- prometheus.MustNewConstMetric(c.in, prometheus.CounterValue, float64(st.BytesIn), id)
		ch <- prometheus.MustNewConstMetric(c.out, prometheus.CounterValue, float64(st.BytesOut), id)
	}
}

// ClientStat is one connected client's traffic so far, counted by QUIC:
// every stream and datagram byte plus QUIC's own packet overhead
// (headers, acknowledgements, keep-alives), retransmissions included, UDP
// and IP headers excluded.
type ClientStat struct {
	Player   uint32
	BytesIn  uint64 // from the client
	BytesOut uint64 // to the client
}

// ClientStats returns the traffic of every connected client. Safe from any
// goroutine.
func (s *Server) ClientStats() []ClientStat {
	s.liveMu.Lock()
	peers := make([]*serverPeer, 0, len(s.live))
	for _, p := range s.live {
		peers = append(peers, p)
	}
	s.liveMu.Unlock()
	out := make([]ClientStat, 0, len(peers))
	for _, p := range peers {
		st := p.conn.ConnectionStats()
		out = append(out, ClientStat{Player: p.id, BytesIn: st.BytesReceived, BytesOut: st.BytesSent})
	}
	return out
}
