package webmap

import (
	"fmt"
	"net/http"
)

// Healthz answers a liveness probe: the process is up and serving HTTP.
// Kubernetes counts any 2xx/3xx as success; the body is for people.
func Healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	fmt.Fprintln(w, "ok")
}

// Readyz answers a readiness probe from ready: 200 "ok" when it returns
// nil, else 503 with its reason, so an orchestrator stops sending
// players here (store closed, cluster lost, shutting down, full).
func Readyz(ready func() error) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if err := ready(); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, "not ready: %v\n", err)
			return
		}
		fmt.Fprintln(w, "ok")
	}
}
