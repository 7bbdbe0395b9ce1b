package wire

import "testing"

func FuzzSubscribe(f *testing.F) { fuzzKind(f, KindSubscribe) }
