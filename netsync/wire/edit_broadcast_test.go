package wire

import "testing"

func FuzzEditBroadcast(f *testing.F) { fuzzKind(f, KindEditBroadcast) }
