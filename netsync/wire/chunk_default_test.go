package wire

import "testing"

func FuzzChunkDefault(f *testing.F) { fuzzKind(f, KindChunkDefault) }
