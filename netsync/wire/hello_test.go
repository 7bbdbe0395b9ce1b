package wire

import "testing"

func FuzzHello(f *testing.F) { fuzzKind(f, KindHello) }
