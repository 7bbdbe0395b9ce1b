// Package scale holds the adaptive render-scale controller and the
// performance profiles. Pure code: it is fed frame times and returns the
// render scale; the renderer applies it to the size of its off-screen
// target.
package scale

import (
	"fmt"
	"math"
	"strings"
)

// Controller constants (from the reference design; see docs/rendering.md).
const (
	Interval   = 2.0   // seconds between adjustments
	SlowRatio  = 1.25  // smoothed frame time over target*SlowRatio shrinks
	FastRatio  = 1.035 // smoothed frame time under target*FastRatio grows
	StepDown   = 0.88
	StepUp     = 1.06
	MinScale   = 0.55
	MaxScale   = 1.0
	Smoothing  = 0.1 // weight of a new sample in the moving average
	maxSampleS = 1.0 // a single frame longer than this (a stall) is clamped
)

// Profile is a performance profile.
type Profile struct {
	Name          string
	TargetFPS     float64 // the controller aims at 1/TargetFPS seconds a frame
	CapFPS        float64 // frame-rate cap (0 = none)
	MaxPixelRatio float64 // cap on framebuffer pixels per window unit
	ShadowSize    int     // shadow map edge in texels
	ShadowRange   float64 // half-extent of the shadow map around the camera, m
}

// The three profiles.
var (
	Full    = Profile{Name: "full", TargetFPS: 60, MaxPixelRatio: 1.5, ShadowSize: 2048, ShadowRange: 160}
	Cool    = Profile{Name: "cool", TargetFPS: 30, CapFPS: 30, MaxPixelRatio: 1, ShadowSize: 1024, ShadowRange: 110}
	Battery = Profile{Name: "battery", TargetFPS: 45, CapFPS: 45, MaxPixelRatio: 1.5, ShadowSize: 2048, ShadowRange: 160}
)

// Profiles lists the profiles by name, in flag-help order.
var Profiles = []Profile{Full, Cool, Battery}

// ParseProfile returns the profile with the given name, or an error naming
// the valid ones.
func ParseProfile(name string) (Profile, error) {
	names := make([]string, 0, len(Profiles))
	for _, p := range Profiles {
		if strings.EqualFold(p.Name, name) {
			return p, nil
		}
		names = append(names, p.Name)
	}
	return Profile{}, fmt.Errorf("unknown profile %q (want one of %s)", name, strings.Join(names, ", "))
}

// TargetSeconds is the frame time the profile aims at.
func (p Profile) TargetSeconds() float64 { return 1 / p.TargetFPS }

// Choose is one adjustment step: given the smoothed frame time, the target
// frame time and the current scale, it returns the new scale.
func Choose(avgSeconds, targetSeconds, current float64) float64 {
	switch {
	case avgSeconds > targetSeconds*SlowRatio:
		return math.Max(MinScale, current*StepDown)
	case avgSeconds < targetSeconds*FastRatio:
		return math.Min(MaxScale, current*StepUp)
	}
	return current
}

// Controller keeps the smoothed frame time and adjusts the scale every
// Interval seconds. The zero value is not usable; use New.
type Controller struct {
	profile  Profile
	scale    float64
	smoothed float64
	have     bool
	clock    float64
	Frozen   bool // when set the scale never changes (screenshots, benches)
}

// New returns a controller at scale 1 for the profile.
func New(p Profile) *Controller { return &Controller{profile: p, scale: MaxScale} }

// Profile returns the controller's profile.
func (c *Controller) Profile() Profile { return c.profile }

// Scale is the current render scale in [MinScale, MaxScale].
func (c *Controller) Scale() float64 { return c.scale }

// Smoothed is the smoothed frame time in seconds (0 before any sample).
func (c *Controller) Smoothed() float64 { return c.smoothed }

// Observe records one frame: dt is the wall time that passed (it drives the
// 2 s clock), work is the time the frame took to produce, excluding any
// frame-cap wait. It returns the scale and whether it changed.
func (c *Controller) Observe(dt, work float64) (float64, bool) {
	if !(work >= 0) || !(dt >= 0) { // NaN or negative: ignore
		return c.scale, false
	}
	work = math.Min(work, maxSampleS)
	if !c.have {
		c.smoothed, c.have = work, true
	} else {
		c.smoothed += Smoothing * (work - c.smoothed)
	}
	c.clock += dt
	if c.clock < Interval {
		return c.scale, false
	}
	c.clock = math.Mod(c.clock, Interval)
	if c.Frozen {
		return c.scale, false
	}
	old := c.scale
	c.scale = Choose(c.smoothed, c.profile.TargetSeconds(), c.scale)
	return c.scale, c.scale != old
}

// TargetSize is the off-screen render target size for a window whose
// framebuffer is fbW×fbH pixels and whose logical size is winW×winH: the
// pixel ratio is capped at maxRatio, then the render scale applies. The
// result is at least 1×1 and never larger than the framebuffer.
func TargetSize(fbW, fbH, winW, winH int, maxRatio, renderScale float64) (int, int) {
	if fbW <= 0 || fbH <= 0 {
		return 1, 1
	}
	f := 1.0
	if winW > 0 && maxRatio > 0 {
		ratio := float64(fbW) / float64(winW)
		if ratio > maxRatio {
			f = maxRatio / ratio
		}
	}
	f *= renderScale
	w := int(math.Round(float64(fbW) * f))
	h := int(math.Round(float64(fbH) * f))
	return max(1, min(w, fbW)), max(1, min(h, fbH))
}
