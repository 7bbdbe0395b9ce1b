package wire

import "testing"

func FuzzWelcome(f *testing.F) { fuzzKind(f, KindWelcome) }
