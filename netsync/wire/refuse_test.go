package wire

import "testing"

func FuzzRefuse(f *testing.F) { fuzzKind(f, KindRefuse) }
