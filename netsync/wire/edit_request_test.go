package wire

import "testing"

func FuzzEditRequest(f *testing.F) { fuzzKind(f, KindEditRequest) }
