package wire

import "testing"

func FuzzChunkDrop(f *testing.F) { fuzzKind(f, KindChunkDrop) }
