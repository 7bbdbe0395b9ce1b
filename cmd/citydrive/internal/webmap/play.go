package webmap

import (
	"encoding/base64"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"strconv"

	"citydrive/netsync/webcert"
)

// Game is the running server as the game page needs it (*netsync.Server):
// where its WebTransport sessions open and which certificates a page may
// accept (webcert).
type Game interface {
	WebTransportAddr() net.Addr
	WebTransportPath() string
	WebCertificates() (webcert.Offer, bool, error)
	Fingerprint() string
}

// PlayPath is where the game page is served; a link to play is
// PlayPath + "#" + the join code.
const PlayPath = "/play/"

// playConfig is /play/config: all a page needs to open a session, apart
// from the join code (which it checks the certificates against).
type playConfig struct {
	WebTransport string   `json:"webtransport"` // session URL
	Seed         string   `json:"seed"`         // decimal: a u64 does not fit a JSON number
	Fingerprint  string   `json:"fingerprint"`  // the identity's SHA-256, as the join code carries it
	Identity     string   `json:"identity"`     // the identity certificate, base64 DER
	Certificates []string `json:"certificates"` // base64 DER, the presented one first
	Hashes       []string `json:"hashes"`       // their SHA-256 in hex, for serverCertificateHashes
}

// playConfig answers /play/config. The session's host is the one the
// browser reached this page at.
func (s *Server) playConfig(w http.ResponseWriter, r *http.Request) {
	g := s.opt.Game
	if g == nil || g.WebTransportAddr() == nil {
		httpError(w, http.StatusNotFound, "this server takes no browser players: start it with -webtransport-addr")
		return
	}
	offer, _, err := g.WebCertificates()
	if err != nil {
		httpError(w, http.StatusInternalServerError, "browser certificates: "+err.Error())
		return
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(r.Host); err == nil {
		host = h
	}
	port := 0
	if ua, ok := g.WebTransportAddr().(*net.UDPAddr); ok {
		port = ua.Port
	}
	c := playConfig{
		WebTransport: "https://" + net.JoinHostPort(host, strconv.Itoa(port)) + g.WebTransportPath(),
		Seed:         fmt.Sprint(s.opt.Seed),
		Fingerprint:  g.Fingerprint(),
		Identity:     base64.StdEncoding.EncodeToString(offer.Identity),
	}
	for i, der := range offer.Certs {
		c.Certificates = append(c.Certificates, base64.StdEncoding.EncodeToString(der))
		c.Hashes = append(c.Hashes, webcert.Hex(offer.Hashes()[i]))
	}
	writeJSON(w, c)
}

// play serves the game page's files.
func (s *Server) play() http.Handler {
	if s.opt.GameFiles == nil {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			httpError(w, http.StatusNotFound, "the browser game is not in this build")
		})
	}
	return http.StripPrefix(PlayPath, newCompressedFiles(s.opt.GameFiles)) // the module gzipped (compressed.go)
}

// gameFilesOK reports whether files holds a page.
func gameFilesOK(files fs.FS) bool {
	_, err := fs.Stat(files, "index.html")
	return err == nil
}
