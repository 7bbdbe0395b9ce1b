package bots

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"citydrive/voxel"
)

// Edit is one edit a bot asked for: acknowledged, or unanswered when the
// run ended (rejected ones are not kept). One JSON object a line in the
// file `citydrive bots -edits-out` writes.
type Edit struct {
	Bot   int            `json:"bot"`
	Seq   uint32         `json:"seq"`
	Pos   voxel.ChunkPos `json:"pos"`
	Index uint16         `json:"i"`
	Block voxel.Block    `json:"b"`
	Acked bool           `json:"acked"`
	AckMs float64        `json:"ms,omitempty"` // request to ack (bot-tick resolution)
}

func (e sentEdit) record(bot int, seq uint32, acked bool) Edit {
	return Edit{Bot: bot, Seq: seq, Pos: e.pos, Index: e.index, Block: e.block, Acked: acked}
}

// WriteEdits writes every bot's recorded edits, one JSON object a line.
func (r Report) WriteEdits(w io.Writer) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for _, b := range r.Bots {
		for _, e := range b.Edits {
			if err := enc.Encode(e); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// maxEditLine bounds one line of an edits file.
const maxEditLine = 1 << 10

// ReadEdits reads what WriteEdits wrote (at most max edits).
func ReadEdits(r io.Reader, max int) ([]Edit, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, maxEditLine), maxEditLine)
	var out []Edit
	for line := 1; sc.Scan(); line++ {
		if len(out) == max {
			return nil, fmt.Errorf("more than %d edits", max)
		}
		var e Edit
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if e.Index >= voxel.ChunkVolume || e.Block >= voxel.NumBlocks {
			return nil, fmt.Errorf("line %d: block index %d or kind %d out of range", line, e.Index, e.Block)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// Lost is what CheckEdits found: the acknowledged edits checked, and
// those whose block the stored world holds neither with their value nor
// with that of a later edit of it (the same bot's, or any other bot's,
// acknowledged or not).
type Lost struct {
	Acked int
	Lost  []Edit
}

// CheckEdits checks every acknowledged edit against stored, the world's
// block at a chunk position and index (ok false: not edited).
func CheckEdits(edits []Edit, stored func(voxel.ChunkPos, uint16) (voxel.Block, bool)) Lost {
	type block struct {
		pos voxel.ChunkPos
		i   uint16
	}
	by := map[block][]Edit{}
	for _, e := range edits {
		k := block{e.Pos, e.Index}
		by[k] = append(by[k], e)
	}
	var l Lost
	for _, e := range edits {
		if !e.Acked {
			continue
		}
		l.Acked++
		got, ok := stored(e.Pos, e.Index)
		if ok && got == e.Block {
			continue
		}
		later := false // superseded by another edit of the block that is stored
		for _, o := range by[block{e.Pos, e.Index}] {
			if (o.Bot != e.Bot || o.Seq > e.Seq) && ok && o.Block == got {
				later = true
				break
			}
		}
		if !later {
			l.Lost = append(l.Lost, e)
		}
	}
	return l
}
