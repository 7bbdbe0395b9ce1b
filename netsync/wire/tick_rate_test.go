package wire

import "testing"

func FuzzTickRate(f *testing.F) { fuzzKind(f, KindTickRate) }
