package wire

import "testing"

func FuzzChunkEdits(f *testing.F) { fuzzKind(f, KindChunkEdits) }
