package slots

import (
	"errors"
	"fmt"
)

// Layout is the whole vertex buffer, tier by tier: the near slots, the far
// slots (none when Far.Slots is 0) and the dynamic region
// (Near.DynamicVerts; Far has none). The renderer holds them in one buffer
// in that order; a headless run holds each tier in a CPUBuffer of its own.
type Layout struct {
	Near Config
	Far  Config
}

// DefaultLayout is DefaultConfig's near tier and 1,024 far slots of 960
// vertices.
func DefaultLayout() Layout {
	return Layout{Near: DefaultConfig(), Far: Config{Slots: DefaultFarSlots, VertsPerSlot: DefaultFarVertsPerSlot}}
}

// Validate reports a layout no buffer could hold.
func (l Layout) Validate() error {
	errs := []error{l.Near.Validate()}
	if l.Far.Slots != 0 {
		if err := l.Far.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("far tier: %w", err))
		}
	}
	if l.Far.DynamicVerts != 0 {
		errs = append(errs, errors.New("slots: the far tier has no dynamic region"))
	}
	return errors.Join(errs...)
}

// FarFirst is the far tier's first vertex in the one buffer.
func (l Layout) FarFirst() int { return l.Near.SlotVerts() }

// DynamicFirst is the dynamic region's first vertex in the one buffer.
func (l Layout) DynamicFirst() int { return l.FarFirst() + l.Far.SlotVerts() }

// TotalVerts is the size of the whole buffer in vertices.
func (l Layout) TotalVerts() int { return l.DynamicFirst() + l.Near.DynamicVerts }

// Bytes is the size of the whole buffer.
func (l Layout) Bytes() int { return l.TotalVerts() * BytesPerVertex }
