package netsync

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestServerConfigCheck(t *testing.T) {
	valid := func() ServerConfig {
		c := DefaultServerConfig()
		c.DataDir, c.World = "/data", NewMemoryWorld()
		return c
	}
	cases := []struct {
		name string
		mod  func(*ServerConfig)
		ok   bool
	}{
		{name: "defaults", mod: func(*ServerConfig) {}, ok: true},
		{name: "reach and budget off", mod: func(c *ServerConfig) { c.Reach, c.DeliveryBudget = 0, 0 }, ok: true},
		{name: "no world", mod: func(c *ServerConfig) { c.World = nil }},
		{name: "no data dir", mod: func(c *ServerConfig) { c.DataDir = "" }},
		{name: "zero tick", mod: func(c *ServerConfig) { c.TickHz = 0 }},
		{name: "radius above the wire's", mod: func(c *ServerConfig) { c.MaxRadius = 65 }},
		{name: "zero deliveries", mod: func(c *ServerConfig) { c.DeliveriesPerTick = 0 }},
		{name: "no edit rate", mod: func(c *ServerConfig) { c.EditsPerSecond = 0 }},
		{name: "negative reach", mod: func(c *ServerConfig) { c.Reach = -1 }},
		{name: "negative budget", mod: func(c *ServerConfig) { c.DeliveryBudget = -1 }},
		{name: "no subscribe budget", mod: func(c *ServerConfig) { c.SubscribesPerSecond = 0 }},
		{name: "no handshakes per address", mod: func(c *ServerConfig) { c.MaxHandshakesPerAddr = 0 }},
		{name: "zero hello timeout", mod: func(c *ServerConfig) { c.HelloTimeout = 0 }},
		{name: "zero frame timeout", mod: func(c *ServerConfig) { c.FrameTimeout = 0 }},
		{name: "zero subscribe timeout", mod: func(c *ServerConfig) { c.SubscribeTimeout = 0 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := valid()
			tc.mod(&c)
			if err := c.check(); tc.ok {
				assert.NoError(t, err)
			} else {
				assert.Error(t, err)
			}
		})
	}
}
