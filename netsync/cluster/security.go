package cluster

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"citydrive/netsync/cluster/natssec"
)

// ErrNotAuthorized is Join's (and the tools') error when NATS refuses
// the server's credentials: none given to a NATS that requires them, or a
// user it does not know.
var ErrNotAuthorized = errors.New("NATS refused this server's credentials")

// ErrTLS is their error when TLS with NATS fails: a node's certificate
// not signed by the CA given (Options.CA), or TLS on one side only.
var ErrTLS = errors.New("TLS with NATS failed")

// securityOptions are the NATS connection options of opt's credentials
// and CA; a file that cannot be used is an error naming it.
func securityOptions(opt Options) ([]nats.Option, error) {
	var o []nats.Option
	if opt.Creds != "" {
		c, err := credsOption(opt.Creds)
		if err != nil {
			return nil, err
		}
		o = append(o, c)
	}
	if opt.CA != "" {
		c, err := caOption(opt.CA)
		if err != nil {
			return nil, err
		}
		o = append(o, c)
	}
	return o, nil
}

// credsOption signs in as the user of path: an nkey seed file (a line
// "SU…") or a credentials file (.creds: the user's JWT and seed). The key
// is read once, here.
func credsOption(path string) (nats.Option, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cluster: NATS credentials: %w", err)
	}
	kp, err := nkeys.ParseDecoratedUserNKey(b)
	if err != nil {
		return nil, fmt.Errorf("cluster: NATS credentials %s: no nkey user seed (a line SU…) in it: want an nkey seed file or a .creds file (%v)", path, err)
	}
	if bytes.Contains(b, []byte("BEGIN NATS USER JWT")) {
		jwt, err := nkeys.ParseDecoratedJWT(b)
		if err != nil || jwt == "" {
			return nil, fmt.Errorf("cluster: NATS credentials %s: the user JWT cannot be read (%v)", path, err)
		}
		return nats.UserJWT(func() (string, error) { return jwt, nil }, kp.Sign), nil
	}
	pub, err := kp.PublicKey()
	if err != nil {
		return nil, fmt.Errorf("cluster: NATS credentials %s: %w", path, err)
	}
	return nats.Nkey(pub, kp.Sign), nil
}

// caOption makes every connection TLS, the NATS node's certificate
// checked against the CA certificates (PEM) in path.
func caOption(path string) (nats.Option, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cluster: NATS CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("cluster: NATS CA %s: no PEM certificate in it", path)
	}
	return nats.Secure(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}), nil
}

// refusal says why NATS at url would not have this connection, given
// the connection's error; nil for an error worth retrying (a node not up
// yet).
func refusal(err error, url string, opt Options) error {
	switch {
	case errors.Is(err, nats.ErrAuthorization), errors.Is(err, nats.ErrAuthExpired),
		errors.Is(err, nats.ErrAuthRevoked), errors.Is(err, nats.ErrAccountAuthExpired):
		who := "none given"
		if opt.Creds != "" {
			who = "the user of " + opt.Creds + " is not one NATS knows"
		}
		return fmt.Errorf("cluster: %w: %s (%v, at %s)", ErrNotAuthorized, who, err, url)
	case errors.Is(err, nats.ErrTLS), errors.Is(err, nats.ErrSecureConnRequired), errors.Is(err, nats.ErrSecureConnWanted):
		why := "check the CA given"
		switch {
		case errors.Is(err, nats.ErrSecureConnWanted):
			why = "a CA is given but the NATS node does not offer TLS"
		case opt.CA == "":
			why = "no CA given: the node's certificate was checked against the system's roots"
		}
		var unknown x509.UnknownAuthorityError
		if opt.CA != "" && errors.As(err, &unknown) {
			why = "the node's certificate is not signed by the CA in " + opt.CA
		}
		return fmt.Errorf("cluster: %w: %s (%v, at %s)", ErrTLS, why, err, url)
	}
	return nil
}

// dial connects to url, retrying until ctx ends while no node answers
// (NATS nodes starting alongside this server may not listen yet); a node
// refusing the credentials or TLS ends it at once.
func dial(ctx context.Context, url string, opt Options, o ...nats.Option) (*nats.Conn, error) {
	for {
		nc, err := nats.Connect(url, o...)
		if err == nil {
			return nc, nil
		}
		if rerr := refusal(err, url, opt); rerr != nil {
			return nil, rerr
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("cluster: connecting to %s: %w (%v)", url, err, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// ServerPermissions are what a citydrive server's NATS user needs for
// seed's world, and no more: its subjects (cars, rosters, forwarded
// edits, vouches: citydrive.<seed>.>), its two buckets (the edits,
// citydrive-<seed>, and the access rules, citydrive-access-<seed>) through
// the JetStream API, and answers to the requests it receives. The export
// and import tools need the same.
func ServerPermissions(seed uint64) natssec.Permissions {
	prefix := "citydrive." + strconv.FormatUint(seed, 10)
	p := natssec.Permissions{
		Publish:   []string{prefix + ".>", "$JS.API.INFO", "$JS.FC.>"},
		Subscribe: []string{prefix + ".>", "_INBOX.>"},
		Responses: true,
	}
	for _, bucket := range []string{bucketName(seed), rulesBucketName(seed)} {
		stream := "KV_" + bucket
		p.Publish = append(p.Publish,
			"$KV."+bucket+".>",
			"$JS.API.STREAM.*."+stream, // CREATE, UPDATE, INFO
			"$JS.API.STREAM.MSG.*."+stream,
			"$JS.API.DIRECT.GET."+stream, "$JS.API.DIRECT.GET."+stream+".>",
			"$JS.API.CONSUMER.*."+stream, "$JS.API.CONSUMER.*."+stream+".>", // CREATE, INFO, DELETE
			"$JS.API.CONSUMER.MSG.NEXT."+stream+".*",
		)
	}
	return p
}

// CheckSecurity reports whether opt's credentials and CA files can be
// used (what Join would say of them), before anything connects.
func CheckSecurity(opt Options) error {
	_, err := securityOptions(opt)
	return err
}
