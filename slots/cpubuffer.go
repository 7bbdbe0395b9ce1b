package slots

import "fmt"

// CPUBuffer is a Sink backed by one slice allocated up front: the whole
// vertex buffer (slot region then dynamic region) as the GPU would hold it.
// Headless runs and tests use it.
type CPUBuffer struct {
	cfg    Config
	Words  []uint32 // WordsPerVertex per vertex
	Counts []int32  // vertices last uploaded per slot; Clear zeroes it only
	Writes int      // uploads performed (Clear never counts)
}

// NewCPUBuffer allocates the buffer for cfg once.
func NewCPUBuffer(cfg Config) (*CPUBuffer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	b := &CPUBuffer{
		cfg:    cfg,
		Words:  make([]uint32, cfg.TotalVerts()*WordsPerVertex),
		Counts: make([]int32, cfg.Slots),
	}
	// Touch every page now: fresh memory is mapped lazily, and faulting it
	// in (2 MB huge pages are zeroed on first write) during an upload costs
	// milliseconds on the frame. A GPU buffer is resident from the start too.
	const pageWords = 4096 / 4
	for i := 0; i < len(b.Words); i += pageWords {
		b.Words[i] = 0
	}
	return b, nil
}

// Upload copies count vertices to the start of slot.
func (b *CPUBuffer) Upload(slot int, verts []uint32, count int) error {
	if slot < 0 || slot >= b.cfg.Slots {
		return fmt.Errorf("slots: slot %d out of range", slot)
	}
	if count < 0 || count > b.cfg.VertsPerSlot || len(verts) < count*WordsPerVertex {
		return fmt.Errorf("slots: upload of %d vertices to slot %d (holds %d, %d words given)", count, slot, b.cfg.VertsPerSlot, len(verts))
	}
	off := slot * b.cfg.VertsPerSlot * WordsPerVertex
	copy(b.Words[off:off+count*WordsPerVertex], verts)
	b.Counts[slot] = int32(count)
	b.Writes++
	return nil
}

// Clear marks slot empty without touching the vertices, as the GPU sink does.
func (b *CPUBuffer) Clear(slot int) { b.Counts[slot] = 0 }

// Slot returns the vertices last uploaded to slot.
func (b *CPUBuffer) Slot(slot int) []uint32 {
	off := slot * b.cfg.VertsPerSlot * WordsPerVertex
	return b.Words[off : off+int(b.Counts[slot])*WordsPerVertex]
}

// Dynamic returns the dynamic region.
func (b *CPUBuffer) Dynamic() []uint32 { return b.Words[b.cfg.SlotVerts()*WordsPerVertex:] }
