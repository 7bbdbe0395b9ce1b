package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"citydrive/cmd/citydrive/internal/bots"
	"citydrive/voxel"
	"citydrive/voxel/backup"
)

const checkEditsAbout = `Checks that every edit the bots had acknowledged is in a backup of the
world (citydrive export): each acknowledged edit's block holds its value,
or that of a later edit of the same block. Reads the files citydrive bots
-edits-out wrote; prints how many were checked and lost, and fails when
any was lost.`

// maxCheckedEdits bounds the edits read from all files together.
const maxCheckedEdits = 10_000_000

// runCheckEdits is `citydrive check-edits`.
func runCheckEdits(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("check-edits", stdout, "check-edits -backup FILE.cde -edits FILE[,FILE…]", checkEditsAbout)
	in := fs.String("backup", "", "the world's backup `file` (.cde, from citydrive export)")
	files := fs.String("edits", "", "the bots' edit `files` (citydrive bots -edits-out), comma-separated")
	if err := fs.parse(args); err != nil {
		return err
	}
	if *in == "" || *files == "" {
		return usageError{errors.New("-backup and at least one edits file (citydrive bots -edits-out) are required")}
	}
	f, err := os.Open(*in)
	if err != nil {
		return err
	}
	_, chunks, err := backup.ReadAll(bufio.NewReader(f))
	f.Close()
	if err != nil {
		return fmt.Errorf("-backup %s: %w", *in, err)
	}
	world := make(map[voxel.ChunkPos]voxel.Overlay, len(chunks))
	for _, c := range chunks {
		world[c.Pos] = c.Overlay
	}
	var edits []bots.Edit
	for _, name := range splitList(*files) {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		es, err := bots.ReadEdits(f, maxCheckedEdits-len(edits))
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		edits = append(edits, es...)
	}
	l := bots.CheckEdits(edits, func(p voxel.ChunkPos, i uint16) (voxel.Block, bool) {
		o, ok := world[p]
		if !ok {
			return voxel.Air, false
		}
		return o.Get(i)
	})
	fmt.Fprintf(stdout, "acknowledged edits: %d checked, %d lost\n", l.Acked, len(l.Lost))
	for i, e := range l.Lost {
		if i == 10 {
			fmt.Fprintf(stdout, "  … %d more\n", len(l.Lost)-i)
			break
		}
		fmt.Fprintf(stdout, "  lost: bot %d edit %d, chunk %v index %d block %d\n", e.Bot, e.Seq, e.Pos, e.Index, e.Block)
	}
	if len(l.Lost) > 0 {
		return fmt.Errorf("%d acknowledged edits are not in %s", len(l.Lost), *in)
	}
	return nil
}
