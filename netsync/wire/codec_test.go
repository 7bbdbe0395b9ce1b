package wire

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/voxel"
)

var testLimits = Limits{MaxRadius: 16, MaxBlock: 200}

// samples holds one representative of every message kind, with realistic
// values (positions a few hundred chunks from the origin).
func samples() []Message {
	pos := voxel.ChunkPos{X: -312, Y: 2, Z: 1047}
	return []Message{
		&Hello{Protocol: ProtocolVersion, Seed: 0x9e3779b97f4a7c15, Generator: 3},
		&Welcome{Protocol: ProtocolVersion, Seed: 0x9e3779b97f4a7c15, Generator: 3, Player: 17, MaxRadius: 12, TickHz: 30, World: 1_780_000_123_456_789, FullHz: 30},
		&Refuse{Reason: "world seed differs: the server runs seed 42, this client 7; start the client with -seed 42"},
		&Subscribe{Centre: pos, Radius: 8},
		&ChunkDefaults{Base: pos, Pos: []voxel.ChunkPos{pos, {X: -320, Y: 1, Z: 1047}, {X: -296, Y: 6, Z: 1031}}},
		&ChunkEdits{Pos: pos, Edits: []voxel.Edit{{Index: 5, Block: 1}, {Index: 4000, Block: 7}, {Index: 32767, Block: 200}}},
		&ChunkDrop{Pos: pos},
		&EditRequest{Player: 0xfeedface12345678, Seq: 70000, Pos: pos, Index: 31000, Block: 9},
		&EditAck{Seq: 70000},
		&EditReject{Seq: 70000, Reason: "too far from your car (reach is 8 m)"},
		&EditBroadcast{Pos: pos, Index: 31000, Block: 9},
		&TickRate{Hz: 17},
		&Clock{Echo: 4_000_123, World: 1_780_000_123_456_789},
		&Reset{Seq: 3, X: -123_456, Y: 2_150, Z: 9_870_000, Heading: 40000},
		&Pose{Seq: 3, X: -123_456, Y: 2_150, Z: 9_870_000, Heading: 40000, Reason: "too many resets: at most one every 2s"},
		&Join{Key: 0xfeedface12345678, Name: "bot-7", Password: "hunter2"},
		&Notice{Text: "server restarts in 60 s", Shutdown: 60},
		&Owners{RX: -20, RZ: 65, Addrs: [OwnerCells]string{"", "10.0.0.7:4701", "", "10.0.0.7:4701", "10.0.0.8:4701", "10.0.0.8:4701", "", "", "citydrive-3.example.net:4701"}},
		&Handover{Drive: true, From: 1<<20 + 17},
	}
}

func TestRoundTrip(t *testing.T) {
	enc := NewEncoder()
	dec := NewDecoder(testLimits)
	for _, m := range samples() {
		t.Run(m.Kind().String(), func(t *testing.T) {
			b, err := enc.Append(nil, m)
			require.NoError(t, err)
			got, err := dec.Decode(b)
			require.NoError(t, err)
			assert.Equal(t, m, got)
		})
	}
}

// TestMessageSizes records the encoded size of every message (payload, not
// counting the 4-byte frame header) and keeps them within budget.
func TestMessageSizes(t *testing.T) {
	budget := map[Kind]int{
		KindHello: 24, KindWelcome: 42, KindClock: 16, KindSubscribe: 16, KindChunkDefaults: 24,
		KindChunkDrop: 12, KindEditRequest: 28, KindEditAck: 8, KindEditBroadcast: 16,
		KindReset: 20,
	}
	for _, m := range samples() {
		b, err := Encode(m)
		require.NoError(t, err)
		t.Logf("%-14s %3d bytes", m.Kind(), len(b))
		if lim, ok := budget[m.Kind()]; ok {
			assert.LessOrEqual(t, len(b), lim, m.Kind().String())
		}
	}
	// Worst cases: every field at its widest valid value.
	far := voxel.ChunkPos{X: -2_000_000_000, Y: -2_000_000_000, Z: 2_000_000_000}
	long := strings.Repeat("x", MaxReasonLen)
	worst := map[Kind]struct {
		m    Message
		size int
	}{
		KindHello:         {&Hello{Protocol: 1 << 31, Seed: 1 << 63, Generator: 1 << 31}, 21},
		KindWelcome:       {&Welcome{Protocol: 1 << 31, Seed: 1 << 63, Generator: 1 << 31, Player: 1 << 31, MaxRadius: AbsMaxRadius, TickHz: MaxTickHz, World: MaxClockMicros, FullHz: MaxTickHz}, 42},
		KindRefuse:        {&Refuse{Reason: long}, 517},
		KindSubscribe:     {&Subscribe{Centre: far, Radius: AbsMaxRadius}, 18},
		KindChunkDefaults: {&ChunkDefaults{Base: far, Pos: []voxel.ChunkPos{far}}, 22},
		KindChunkDrop:     {&ChunkDrop{Pos: far}, 17},
		KindEditRequest:   {&EditRequest{Player: 1<<64 - 1, Seq: 1 << 31, Pos: far, Index: 32767, Block: 255}, 36},
		KindEditAck:       {&EditAck{Seq: 1 << 31}, 7},
		KindEditReject:    {&EditReject{Seq: 1 << 31, Reason: long}, 522},
		KindEditBroadcast: {&EditBroadcast{Pos: far, Index: 32767, Block: 255}, 22},
		KindTickRate:      {&TickRate{Hz: MaxTickHz}, 5},
		KindClock:         {&Clock{Echo: MaxClockMicros, World: MaxClockMicros}, 20},
		KindJoin:          {&Join{Key: 1<<64 - 1, Name: strings.Repeat("n", MaxNameLen), Password: strings.Repeat("p", MaxPasswordLen)}, 175},
		KindNotice:        {&Notice{Text: long, Shutdown: MaxShutdownSeconds}, 522},
	}
	for k, w := range worst {
		b, err := Encode(w.m)
		require.NoError(t, err)
		t.Logf("%-14s %3d bytes (worst case)", k, len(b))
		assert.Equal(t, w.size, len(b), k.String())
	}
	one, err := Encode(&ChunkEdits{Pos: voxel.ChunkPos{}, Edits: []voxel.Edit{{Index: 1, Block: 1}}})
	require.NoError(t, err)
	all := make([]voxel.Edit, MaxChunkEdits)
	for i := range all {
		all[i] = voxel.Edit{Index: uint16(i), Block: 1}
	}
	full, err := Encode(&ChunkEdits{Edits: all})
	require.NoError(t, err)
	def, err := Encode(&ChunkDefaults{Base: voxel.ChunkPos{X: -312, Y: 2, Z: 1047}, Pos: []voxel.ChunkPos{{X: -312, Y: 2, Z: 1047}}})
	require.NoError(t, err)
	t.Logf("ChunkDefaults  %3d bytes + 3 per chunk (%d chunks per message at most)", len(def)-3, MaxChunkDefaults)
	t.Logf("ChunkEdits     %3d bytes + 3 per edit; fully edited chunk %d bytes (cap %d)", len(one)-3, len(full), ChunkCap)
	assert.Less(t, len(full), ChunkCap)
	snap := AppendCarSnapshot(nil, QuantiseCar(1, 2, 3, 4, 5, 6, 7))
	t.Logf("CarSnapshot    %3d bytes; %d per %d-byte datagram", len(snap), MaxCarsPerDatagram, MaxDatagramSize)
	assert.LessOrEqual(t, len(snap), 32)
}

func TestEncodeRejectsInvalid(t *testing.T) {
	for _, m := range []Message{
		&ChunkEdits{},
		&ChunkEdits{Edits: []voxel.Edit{{Index: 3}, {Index: 3}}},
		&ChunkEdits{Edits: []voxel.Edit{{Index: voxel.ChunkVolume}}},
		&EditRequest{Index: voxel.ChunkVolume},
		&ChunkDefaults{},
		&ChunkDefaults{Pos: []voxel.ChunkPos{{X: 128}}},
		&ChunkDefaults{Pos: make([]voxel.ChunkPos, MaxChunkDefaults+1)},
		&EditBroadcast{Index: 40000},
	} {
		_, err := Encode(m)
		assert.Error(t, err, "%#v", m)
	}
	long := bytes.Repeat([]byte("é"), MaxReasonLen)
	b, err := Encode(&Refuse{Reason: string(long) + "\xff"})
	require.NoError(t, err)
	m, err := Decode(b, testLimits)
	require.NoError(t, err, "an over-long reason is truncated at a rune boundary")
	assert.LessOrEqual(t, len(m.(*Refuse).Reason), MaxReasonLen)
}

func TestDecodeRejects(t *testing.T) {
	valid := func(m Message) []byte {
		b, err := Encode(m)
		require.NoError(t, err)
		return b
	}
	type tc struct {
		in   []byte
		want string // part of the error, proving which check fired
	}
	cases := map[string]tc{
		"empty":                {[]byte{}, "empty message"},
		"not an array":         {[]byte{0x01}, "not an array"},
		"nil array":            {[]byte{0xc0}, "not an array"},
		"unknown kind":         {[]byte{0x91, 0x63}, "unknown message kind"},
		"kind negative":        {[]byte{0x91, 0xff}, "negative"},
		"too few fields":       {[]byte{0x91, byte(KindEditAck)}, "1 elements"},
		"too many fields":      {[]byte{0x93, byte(KindEditAck), 1, 2}, "3 elements"},
		"nil field":            {[]byte{0x92, byte(KindEditAck), 0xc0}, "not an integer"},
		"float field":          {[]byte{0x92, byte(KindEditAck), 0xca, 0x40, 0, 0, 0}, "not an integer"},
		"negative seq":         {[]byte{0x92, byte(KindEditAck), 0xff}, "negative"},
		"seq > uint32":         {[]byte{0x92, byte(KindEditAck), 0xcf, 0, 0, 0, 1, 0, 0, 0, 0}, "out of range"},
		"truncated field":      {[]byte{0x92, byte(KindEditAck), 0xce, 0, 0}, "seq"},
		"trailing bytes":       {append(valid(&EditAck{Seq: 1}), 0), "trailing"},
		"radius too large":     {valid(&Subscribe{Radius: testLimits.MaxRadius + 1}), "radius"},
		"block too large":      {valid(&EditBroadcast{Block: testLimits.MaxBlock + 1}), "block"},
		"index 32768":          {[]byte{0x98, byte(KindEditRequest), 7, 1, 0, 0, 0, 0xcd, 0x80, 0x00, 1}, "index"},
		"pos > int32":          {[]byte{0x98, byte(KindEditRequest), 7, 1, 0xce, 0x80, 0, 0, 0, 0, 0, 1, 1}, "pos.x"},
		"edits not sorted":     {[]byte{0x95, byte(KindChunkEdits), 0, 0, 0, 0xc4, 6, 0, 9, 1, 0, 8, 1}, "not increasing"},
		"edits duplicate":      {[]byte{0x95, byte(KindChunkEdits), 0, 0, 0, 0xc4, 6, 0, 9, 1, 0, 9, 1}, "not increasing"},
		"edits ragged":         {[]byte{0x95, byte(KindChunkEdits), 0, 0, 0, 0xc4, 4, 0, 9, 1, 0}, "multiple of 3"},
		"edits empty":          {[]byte{0x95, byte(KindChunkEdits), 0, 0, 0, 0xc4, 0}, "multiple of 3"},
		"edits as str":         {[]byte{0x95, byte(KindChunkEdits), 0, 0, 0, 0xa3, 0, 9, 1}, "wrong type"},
		"edits index high":     {[]byte{0x95, byte(KindChunkEdits), 0, 0, 0, 0xc4, 3, 0x80, 0, 1}, "index 32768 out of range"},
		"edits block high":     {[]byte{0x95, byte(KindChunkEdits), 0, 0, 0, 0xc4, 3, 0, 1, 201}, "block 201"},
		"edits over the frame": {[]byte{0x95, byte(KindChunkEdits), 0, 0, 0, 0xc4, 6, 0, 1, 1}, "bytes left"},
		"defaults empty":       {[]byte{0x95, byte(KindChunkDefaults), 0, 0, 0, 0xc4, 0}, "multiple of 3"},
		"defaults ragged":      {[]byte{0x95, byte(KindChunkDefaults), 0, 0, 0, 0xc4, 2, 0, 0}, "multiple of 3"},
		"defaults as str":      {[]byte{0x95, byte(KindChunkDefaults), 0, 0, 0, 0xa3, 0, 0, 0}, "wrong type"},
		"defaults beyond r":    {[]byte{0x95, byte(KindChunkDefaults), 0, 0, 0, 0xc4, 3, 17, 0, 0}, "outside radius"},
		"defaults dy beyond":   {[]byte{0x95, byte(KindChunkDefaults), 0, 0, 0, 0xc4, 3, 0, 0xf7, 0}, "outside radius"},
		"defaults overflow":    {[]byte{0x95, byte(KindChunkDefaults), 0xce, 0x7f, 0xff, 0xff, 0xff, 0, 0, 0xc4, 3, 1, 0, 0}, "overflows"},
		"defaults over frame":  {[]byte{0x95, byte(KindChunkDefaults), 0, 0, 0, 0xc4, 6, 0, 0, 0}, "bytes left"},
		"reason not utf8":      {[]byte{0x92, byte(KindRefuse), 0xa1, 0xff}, "UTF-8"},
		"reason as bin":        {[]byte{0x92, byte(KindRefuse), 0xc4, 1, 'x'}, "wrong type"},
		"reason too long":      {[]byte{0x92, byte(KindRefuse), 0xda, 0x10, 0x00}, "exceeds"},
		"welcome tick 0":       {[]byte{0x97, byte(KindWelcome), 1, 1, 1, 1, 1, 0}, "tick hz: zero"},
		"welcome radius":       {[]byte{0x97, byte(KindWelcome), 1, 1, 1, 1, 0xcc, AbsMaxRadius + 1, 30}, "max radius"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Decode(c.in, testLimits)
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrMalformed), "%v", err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

// lengthBombs are tiny messages declaring huge lengths. msgpack/v5's
// reflection decoder would preallocate by these lengths (hundreds of MB).
var lengthBombs = map[string][]byte{
	"array32 header":       {0xdd, 0xff, 0xff, 0xff, 0xff, byte(KindChunkEdits), 0, 0, 0, 0xc4, 3},
	"bin32 edits":          {0x95, byte(KindChunkEdits), 0, 0, 0, 0xc6, 0x7f, 0xff, 0xff, 0xff, 0, 1, 1},
	"bin16 edits":          {0x95, byte(KindChunkEdits), 0, 0, 0, 0xc5, 0xff, 0xff, 0, 1, 1},
	"str32 refuse":         {0x92, byte(KindRefuse), 0xdb, 0xff, 0xff, 0xff, 0xff, 'a'},
	"str32 reject":         {0x93, byte(KindEditReject), 1, 0xdb, 0x7f, 0xff, 0xff, 0xff, 'a'},
	"map32 as message":     {0xdf, 0xff, 0xff, 0xff, 0xff, 1, 2},
	"bin32 defaults":       {0x95, byte(KindChunkDefaults), 0, 0, 0, 0xc6, 0x7f, 0xff, 0xff, 0xff, 0, 0, 0},
	"bin32 defaults fits":  {0x95, byte(KindChunkDefaults), 0, 0, 0, 0xc6, 0x00, 0x03, 0x00, 0x00, 0, 0, 0},
	"array32 inside field": {0x95, byte(KindSubscribe), 0xdd, 0xff, 0xff, 0xff, 0xff, 0, 0, 1},
}

// bombChecks names the check that must stop each bomb.
var bombChecks = map[string]string{
	"array32 header":       "elements",
	"bin32 edits":          "exceeds",
	"bin16 edits":          "bytes left",
	"str32 refuse":         "exceeds",
	"str32 reject":         "exceeds",
	"map32 as message":     "not an array",
	"bin32 defaults":       "exceeds",
	"bin32 defaults fits":  "bytes left",
	"array32 inside field": "not an integer",
}

func TestLengthBombsAllocateLittle(t *testing.T) {
	dec := NewDecoder(testLimits)
	for name, b := range lengthBombs {
		t.Run(name, func(t *testing.T) {
			_, err := dec.Decode(b)
			require.ErrorIs(t, err, ErrMalformed)
			assert.Contains(t, err.Error(), bombChecks[name])
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for range 100 {
				_, _ = dec.Decode(b)
			}
			runtime.ReadMemStats(&after)
			perCall := (after.TotalAlloc - before.TotalAlloc) / 100
			assert.Less(t, perCall, uint64(1024), "bytes allocated per decode of a %d-byte bomb", len(b))
		})
	}
}

// TestValidDecodeAllocations: decoding a small valid message allocates only
// the message itself (and its error-free path does not touch msgpack's
// reflection).
func TestValidDecodeAllocations(t *testing.T) {
	dec := NewDecoder(testLimits)
	b, err := Encode(&EditBroadcast{Pos: voxel.ChunkPos{X: 1, Y: 2, Z: 3}, Index: 7, Block: 1})
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(100, func() { _, _ = dec.Decode(b) })
	assert.LessOrEqual(t, allocs, 1.0)
}

func TestEncoderReusesBuffer(t *testing.T) {
	enc := NewEncoder()
	buf := make([]byte, 0, 256)
	m := &EditBroadcast{Pos: voxel.ChunkPos{X: 1, Y: 2, Z: 3}, Index: 7, Block: 1}
	allocs := testing.AllocsPerRun(100, func() {
		var err error
		buf, err = enc.AppendFrame(buf[:0], m, ControlCap)
		if err != nil {
			panic(err)
		}
	})
	assert.Zero(t, allocs)
}

// fuzzKind fuzzes one message decoder: the input is the message body after
// the array header and kind, so every iteration reaches that decoder.
func fuzzKind(f *testing.F, k Kind) {
	for _, m := range samples() {
		if m.Kind() != k {
			continue
		}
		b, err := Encode(m)
		require.NoError(f, err)
		f.Add(b[2:])
	}
	f.Add([]byte{})
	f.Add([]byte{0xdd, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0xc6, 0x7f, 0xff, 0xff, 0xff, 1})
	fields := newMessage(k).fieldCount()
	f.Fuzz(func(t *testing.T, body []byte) {
		payload := append([]byte{0x90 | byte(1+fields), byte(k)}, body...)
		checkDecode(t, payload)
	})
}

// checkDecode asserts the decoder's contract on arbitrary input: no panic,
// errors wrap ErrMalformed, and anything accepted re-encodes to something
// that decodes to the same message.
func checkDecode(t *testing.T, payload []byte) {
	m, err := Decode(payload, testLimits)
	if err != nil {
		if !errors.Is(err, ErrMalformed) {
			t.Fatalf("error does not wrap ErrMalformed: %v", err)
		}
		return
	}
	b, err := Encode(m)
	if err != nil {
		t.Fatalf("accepted %#v but cannot re-encode it: %v", m, err)
	}
	if len(b) > len(payload) {
		t.Fatalf("re-encoding grew from %d to %d bytes", len(payload), len(b))
	}
	m2, err := Decode(b, testLimits)
	if err != nil {
		t.Fatalf("re-encoded %#v does not decode: %v", m, err)
	}
	assert.Equal(t, m, m2)
}

func FuzzDecode(f *testing.F) {
	for _, m := range samples() {
		b, err := Encode(m)
		require.NoError(f, err)
		f.Add(b)
	}
	for _, b := range lengthBombs {
		f.Add(b)
	}
	f.Fuzz(checkDecode)
}
