package netsync

import "runtime"

type runtimeMem struct{ heap int64 }

func (m *runtimeMem) read() {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.heap = int64(ms.HeapAlloc)
}
