package wire

import "testing"

func FuzzEditAck(f *testing.F) { fuzzKind(f, KindEditAck) }
