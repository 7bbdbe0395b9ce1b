package wire

import "testing"

func FuzzEditReject(f *testing.F) { fuzzKind(f, KindEditReject) }
