package wire

import "testing"

func FuzzChunkDefaults(f *testing.F) { fuzzKind(f, KindChunkDefaults) }
