package netsync

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/quic-go/quic-go"

	"citydrive/netsync/transport"
	"citydrive/netsync/wire"
	"citydrive/voxel"
)

// ServerConfig configures a Server. Start from DefaultServerConfig.
type ServerConfig struct {
	Addr string // UDP listen address; "127.0.0.1:0" picks a loopback port
	// WebTransportAddr, if set, is a second UDP listen address, for
	// browsers' WebTransport sessions (webtransport.go); "": none.
	WebTransportAddr string
	DataDir          string // where the server identity (certificate) is kept; required
	// InProcess makes a server with no socket and no identity on disk
	// (Addr, WebTransportAddr and DataDir unused): players join it only
	// from the same process, through memory (ClientConfig.InProcess,
	// pipe.go). The browser's solo play runs one in the page.
	InProcess bool
	Seed      uint64 // world seed
	Generator uint32 // terrain generator version
	World     World  // the voxel world; required
	// Cars, if set, exchanges cars with other servers of the same world
	// (a cluster); nil: players see this server's cars only.
	Cars CarExchange
	// Owners, if set, says which server owns each region (a cluster's
	// leases); every client is told the owners around it (wire.Owners) so
	// it can hand itself over as it drives. nil: nothing is said.
	Owners OwnerDirectory
	// FirstPlayer offsets this server's player ids (the first player gets
	// FirstPlayer+1), so servers sharing a world hand out distinct ids.
	FirstPlayer uint32
	// WorldClock is the world clock the server announces (traffic runs on
	// it), slowed as the tick rate drops (slowclock.go); nil:
	// WallWorldClock.
	WorldClock func() time.Duration

	Tuning

	// Registerer receives the server's Prometheus metrics (nil: the
	// metrics are kept but not registered anywhere).
	Registerer prometheus.Registerer
	Logger     *slog.Logger
	// Observer, if set, is told about joins, departures and refusals. It is
	// called from server goroutines and must not block.
	Observer func(Event)
	// Gate, if set, decides in the handshake whether a player may join
	// (bans, allow-list, join password; see admin.go). nil: everyone.
	Gate Gate
}

// Tuning is the server's budgets and limits; DefaultServerConfig holds
// their defaults, the only place they are written.
type Tuning struct {
	MaxRadius         uint32 // largest subscription radius in chunks
	TickHz            int    // server tick rate
	DeliveriesPerTick int    // edited-chunk deliveries per client per tick
	// DefaultsPerTick bounds never-edited chunks announced per client per
	// tick; they cost 3 bytes each in a ChunkDefaults and nothing to
	// prepare, so a whole area fits in a tick or two.
	DefaultsPerTick int
	MaxBlock        voxel.Block // largest block id the decoder accepts
	EditsPerSecond  float64     // per-player edit rate limit, also the burst
	// DeliveryBudget bounds the wall time one tick spends delivering chunks
	// to all clients together; clients are served round-robin, so the ones
	// cut off go first next tick. 0: count bound only.
	DeliveryBudget time.Duration
	// Reach is how far (metres) from the player's latest car snapshot an
	// edited block may lie. 0: anywhere in the player's area.
	Reach float64

	InboundQueue     int   // decoded messages buffered per client
	InboundPerTick   int   // messages handled per client per tick
	OutboundFrames   int   // frames queued per client before it is cut off
	OutboundBytes    int64 // bytes queued per client before it is cut off
	MaxHandshakes    int   // concurrent handshakes
	MaxPlayers       int   // connected players
	HandshakeTimeout time.Duration

	// SubscribesPerSecond is each client's Subscribe budget (also the
	// burst): Subscribes arriving faster are coalesced, only the newest
	// centre kept, and at most one cylinder is rebuilt per client per tick.
	SubscribesPerSecond float64
	// SubscribeChunksPerTick bounds the cylinder changes (chunks entered
	// plus left) the tick applies for all clients together; a due
	// Subscribe past it waits for the next tick (still coalesced). A join
	// burst (a first Subscribe is a whole cylinder, 1,773 chunks at radius
	// 8) is then spread over a few ticks instead of stalling one. At least
	// one Subscribe is applied per tick whatever its size. 16,384 is about
	// 9 joins, or 50 moves by one chunk, at radius 8.
	SubscribeChunksPerTick int
	// MaxHandshakesPerAddr bounds concurrent handshakes from one address
	// (an IPv4 address or an IPv6 /64), so one host holding half-open
	// handshakes cannot take every slot; when all MaxHandshakes are held,
	// a newcomer takes the oldest slot of the address holding the most.
	MaxHandshakesPerAddr int
	// MaxPlayersPerAddr bounds the players connected from one address: a
	// household or a NAT gets several, one host cannot take every seat.
	MaxPlayersPerAddr int
	// IdleLimit is how long a player may stay connected sending neither a
	// car snapshot nor an edit request.
	IdleLimit time.Duration
	// ClockPingsPerSecond is each client's Clock budget (also the burst):
	// past it the server reads that client's control stream no faster.
	ClockPingsPerSecond float64
	// CarsPerSecond is each client's car-datagram budget (also the
	// burst); datagrams past it are dropped unread.
	CarsPerSecond float64
	// ResetEvery is the shortest gap between two granted car resets of a
	// player (a burst of one); ResetReach (metres) is how far from the
	// car's accepted position a reset may put it.
	ResetEvery time.Duration
	ResetReach float64
	// HelloTimeout bounds the time from accepting a connection to a
	// complete Hello (shorter than HandshakeTimeout, the whole handshake).
	HelloTimeout time.Duration
	// FrameTimeout bounds how long a client's frame may take once its first
	// byte has arrived; a stalled frame ends the connection.
	FrameTimeout time.Duration
	// SubscribeTimeout is how long a client may stay connected without a
	// Subscribe being applied.
	SubscribeTimeout time.Duration

	// MaxCarSpeed (m/s) bounds how fast a player's car may move between
	// two accepted snapshots, plus at most CarSlack metres in all
	// (quantisation, datagram jitter: plausible.go); faster moves and
	// jumps are dropped and the car held at its last accepted position,
	// from which edit reach is measured. Only a Reset moves it further.
	// 0: positions are not checked.
	MaxCarSpeed float64
	CarSlack    float64
	// SpawnX, SpawnZ (metres) is where the server places every new
	// player's car (the first Pose on its chunk stream).
	SpawnX, SpawnZ float64
	// SpawnRadius (metres) is how far from the spawn a new player's first
	// snapshot may lie, horizontally (the game puts the car on the road
	// nearest the spawn, over a kilometre away where the spawn is on the
	// lake). 0: anywhere, for load tools that place their bots themselves.
	SpawnRadius float64

	// TickBudget is the work one tick may take before the server slows
	// time: the tick rate drops smoothly (the factor grows with the square
	// of the overload) down to TickFloorHz, clients are told the rate
	// (TickRate), and it recovers when the load falls. 0: never slows.
	// TickFloorHz above TickHz means TickHz.
	TickBudget  time.Duration
	TickFloorHz int
}

// DefaultServerConfig is a loopback server with every budget at its
// default; the flags of `citydrive server` read their defaults from it.
func DefaultServerConfig() ServerConfig {
	return ServerConfig{
		Addr: "127.0.0.1:0",
		Tuning: Tuning{
			MaxRadius:         8,
			TickHz:            30,
			DeliveriesPerTick: 32,
			DefaultsPerTick:   1024,
			MaxBlock:          wire.DefaultLimits.MaxBlock,
			EditsPerSecond:    20,
			DeliveryBudget:    3 * time.Millisecond,
			Reach:             48,
			InboundQueue:      256,
			InboundPerTick:    64,
			OutboundFrames:    4096,
			OutboundBytes:     8 << 20,
			MaxHandshakes:     64,
			MaxPlayers:        512, // the issue-12 load test: 400 players slow time, none is turned away
			HandshakeTimeout:  transport.HandshakeTimeout,

			SubscribesPerSecond:    8,
			SubscribeChunksPerTick: 16384,
			MaxHandshakesPerAddr:   8,
			MaxPlayersPerAddr:      8,
			IdleLimit:              time.Minute,
			ClockPingsPerSecond:    2, // the client pings every 2 s
			CarsPerSecond:          60,
			ResetEvery:             2 * time.Second,
			ResetReach:             150, // autopilot.ResetPose looks 60 m along the nearest lane
			HelloTimeout:           2 * time.Second,
			FrameTimeout:           5 * time.Second,
			SubscribeTimeout:       10 * time.Second,

			MaxCarSpeed: 58,   // the game car's top speed (cmd/citydrive/internal/car)
			CarSlack:    16,   // ~0.25 s of datagram jitter at top speed
			SpawnRadius: 1500, // roadgraph.JunctionNear searches 5 rings of 150 m cells: over a lake the game's car starts ~1.2 km out

			TickBudget:  10 * time.Millisecond,
			TickFloorHz: 10,
		},
	}
}

// check reports the first field that is out of range.
func (c *ServerConfig) check() error {
	switch {
	case c.World == nil:
		return errors.New("netsync: ServerConfig.World is required")
	case c.InProcess && c.WebTransportAddr != "":
		return errors.New("netsync: an InProcess server takes no WebTransport sessions")
	case !c.InProcess && c.DataDir == "":
		return errors.New("netsync: ServerConfig.DataDir is required (the server identity lives there)")
	case !c.InProcess && c.Addr == "":
		return errors.New("netsync: ServerConfig.Addr is required")
	case c.MaxRadius < 1 || c.MaxRadius > wire.AbsMaxRadius:
		return fmt.Errorf("netsync: MaxRadius %d out of range (1..%d)", c.MaxRadius, wire.AbsMaxRadius)
	case c.TickHz < 1 || c.TickHz > wire.MaxTickHz:
		return fmt.Errorf("netsync: TickHz %d out of range (1..%d)", c.TickHz, wire.MaxTickHz)
	case c.DeliveriesPerTick < 1, c.DefaultsPerTick < 1, c.InboundQueue < 1, c.InboundPerTick < 1,
		c.OutboundFrames < 1, c.OutboundBytes < 1, c.MaxHandshakes < 1, c.MaxPlayers < 1, c.MaxHandshakesPerAddr < 1,
		c.SubscribeChunksPerTick < 1, c.MaxPlayersPerAddr < 1:
		return errors.New("netsync: every per-tick, queue and player bound must be at least 1 (start from DefaultServerConfig)")
	case !(c.EditsPerSecond > 0):
		return fmt.Errorf("netsync: EditsPerSecond %g must be positive", c.EditsPerSecond)
	case c.DeliveryBudget < 0, c.HandshakeTimeout <= 0, c.HelloTimeout <= 0, c.FrameTimeout <= 0, c.SubscribeTimeout <= 0:
		return errors.New("netsync: DeliveryBudget must not be negative and every timeout must be positive")
	case !(c.SubscribesPerSecond >= 1):
		return fmt.Errorf("netsync: SubscribesPerSecond %g must be at least 1", c.SubscribesPerSecond)
	case c.TickBudget < 0, c.TickFloorHz < 1:
		return fmt.Errorf("netsync: TickBudget %v must not be negative and TickFloorHz %d at least 1 (it is capped at TickHz)", c.TickBudget, c.TickFloorHz)
	case !(c.MaxCarSpeed >= 0 && c.CarSlack >= 0 && c.SpawnRadius >= 0 && c.ResetReach >= 0):
		return fmt.Errorf("netsync: MaxCarSpeed %g, CarSlack %g, SpawnRadius %g and ResetReach %g must not be negative", c.MaxCarSpeed, c.CarSlack, c.SpawnRadius, c.ResetReach)
	case math.IsNaN(c.SpawnX) || math.IsInf(c.SpawnX, 0) || math.IsNaN(c.SpawnZ) || math.IsInf(c.SpawnZ, 0):
		return fmt.Errorf("netsync: spawn (%g, %g) must be finite", c.SpawnX, c.SpawnZ)
	case c.IdleLimit <= 0, c.ResetEvery <= 0:
		return fmt.Errorf("netsync: IdleLimit %v and ResetEvery %v must be positive", c.IdleLimit, c.ResetEvery)
	case !(c.ClockPingsPerSecond >= 1 && c.CarsPerSecond >= 1):
		return fmt.Errorf("netsync: ClockPingsPerSecond %g and CarsPerSecond %g must be at least 1", c.ClockPingsPerSecond, c.CarsPerSecond)
	case !(c.Reach >= 0):
		return fmt.Errorf("netsync: Reach %g must not be negative", c.Reach)
	}
	return nil
}

// EventKind classifies an Event.
type EventKind int

const (
	EventJoined  EventKind = iota // a client completed the handshake
	EventLeft                     // a client's connection ended
	EventRefused                  // a handshake was refused
)

func (k EventKind) String() string {
	return [...]string{"joined", "left", "refused"}[k]
}

// Event reports a change in the server's connections.
type Event struct {
	Kind   EventKind
	Player uint32 // 0 for refusals
	Remote net.Addr
	Code   quic.ApplicationErrorCode
	Reason string
}
