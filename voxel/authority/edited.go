package authority

import "citydrive/voxel"

// EditedChunks calls fn for every chunk with committed edits, at most max
// of them, and reports whether it stopped at max (the operator's map
// shows them). Safe from any goroutine; fn must not call back into w.
func (w *World) EditedChunks(max int, fn func(voxel.ChunkPos)) (cut bool) {
	w.readyMu.RLock()
	defer w.readyMu.RUnlock()
	n := 0
	for p := range w.edited {
		if n == max {
			return true
		}
		fn(p)
		n++
	}
	return false
}

// Closed reports whether Close has begun (the readiness probe: a closed
// world takes no edits).
func (w *World) Closed() bool {
	select {
	case <-w.stop:
		return true
	default:
		return false
	}
}
