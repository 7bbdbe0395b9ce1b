package authority

// serveExports starts the store's export socket. A server that cannot
// listen there (a read-only or odd data directory) still runs: it logs
// that exports need the server stopped, which is what they took before.
func (w *World) serveExports() {
	e, err := w.st.ServeExports()
	if err != nil {
		w.log.Warn("exports while the server runs are unavailable (citydrive export needs it stopped)", "err", err)
		return
	}
	w.exports = e
	w.log.Debug("serving exports", "socket", e.Path())
}

// closeExports stops the export socket; before the store closes, since
// bbolt's Close waits for an export's read transaction.
func (w *World) closeExports() error {
	if w.exports == nil {
		return nil
	}
	return w.exports.Close()
}
