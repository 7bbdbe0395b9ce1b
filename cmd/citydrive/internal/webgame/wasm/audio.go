//go:build js && wasm

package main

import (
	"encoding/binary"
	"math"
	"syscall/js"

	"citydrive/cmd/citydrive/internal/sound"
)

// The engine sound through Web Audio: the desktop's synthesiser
// (package sound), its samples handed to an AudioContext a chunk at a
// time (sound.Queue: one AudioBufferSourceNode per 46 ms chunk, scheduled
// ahead of the context's clock) from the frame loop. Browsers start audio
// only from a user gesture, so the context is made on the first key or
// pointer press; ?mute=1 makes none (a page that is never touched, as in
// the headless tests, is silent anyway).

// audioLead is how far ahead of the audio clock the frame schedules, in
// frame intervals: a frame late by less than that is not heard.
const audioLead = 2

type pageAudio struct {
	synth *sound.Synth
	queue *sound.Queue
	ctx   js.Value // the AudioContext, once a gesture made it
	buf   js.Value // Float32Array the samples travel through
	bytes js.Value // a Uint8Array over buf's memory
	raw   []byte   // the samples as float32 little endian (the browsers' order)
	state js.Value // window.citydrive.audio
	start js.Func
}

// newPageAudio waits for the first gesture; state is published in o.
func newPageAudio(o js.Value) *pageAudio {
	a := &pageAudio{synth: sound.New(), state: o}
	a.queue = sound.NewQueue(a.synth)
	a.buf = js.Global().Get("Float32Array").New(sound.QueueChunk)
	a.bytes = js.Global().Get("Uint8Array").New(a.buf.Get("buffer"))
	a.raw = make([]byte, sound.QueueChunk*sound.BytesPerSample)
	o.Set("state", "waiting for a key or a click")
	a.start = js.FuncOf(func(js.Value, []js.Value) any {
		a.begin()
		return nil
	})
	for _, ev := range []string{"pointerdown", "keydown"} {
		js.Global().Call("addEventListener", ev, a.start)
	}
	return a
}

// begin makes the context inside the gesture's handler (once).
func (a *pageAudio) begin() {
	if a.ctx.Truthy() {
		return
	}
	for _, ev := range []string{"pointerdown", "keydown"} {
		js.Global().Call("removeEventListener", ev, a.start)
	}
	ctor := js.Global().Get("AudioContext")
	if !ctor.Truthy() {
		a.state.Set("state", "this browser has no Web Audio")
		return
	}
	a.ctx = ctor.New()
	a.ctx.Call("resume")
}

// pump tops the schedule up; frameSeconds is the last frame's interval.
func (a *pageAudio) pump(frameSeconds float64) {
	if !a.ctx.Truthy() {
		return
	}
	state := a.ctx.Get("state").String()
	a.state.Set("state", state)
	if state != "running" {
		return
	}
	now := a.ctx.Get("currentTime").Float()
	a.queue.Pump(now, audioLead*frameSeconds, a.play)
	a.state.Set("chunks", a.queue.Plays)
	a.state.Set("gaps", a.queue.Gaps)
}

func (a *pageAudio) play(start float64, samples []float32) {
	// One copy into JS, not a call per sample: syscall/js copies bytes only.
	for i, v := range samples {
		binary.LittleEndian.PutUint32(a.raw[i*sound.BytesPerSample:], math.Float32bits(v))
	}
	js.CopyBytesToJS(a.bytes, a.raw[:len(samples)*sound.BytesPerSample])
	b := a.ctx.Call("createBuffer", 1, len(samples), sound.SampleRate)
	b.Call("copyToChannel", a.buf, 0)
	src := a.ctx.Call("createBufferSource")
	src.Set("buffer", b)
	src.Call("connect", a.ctx.Get("destination"))
	src.Call("start", start)
}
