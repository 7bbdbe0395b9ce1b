package netsync

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"citydrive/netsync/transport"
	"citydrive/netsync/wire"
)

// restartChildEnv makes the test binary a server process (TestMain): it
// serves the data directory named by the variable on restartAddrEnv's
// address, prints "address fingerprint" once listening, and runs until
// it is killed.
const (
	restartChildEnv = "NETSYNC_RESTART_CHILD_DIR"
	restartAddrEnv  = "NETSYNC_RESTART_CHILD_ADDR"
)

func restartChild(dir, addr string) int {
	cfg := DefaultServerConfig()
	cfg.Addr, cfg.DataDir, cfg.Seed, cfg.Generator, cfg.World = addr, dir, 42, 3, NewMemoryWorld()
	cfg.MaxRadius, cfg.MaxBlock, cfg.Logger, cfg.TickBudget = 4, 200, quietLog(), 0
	s, err := NewServer(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Println(s.Addr().String(), s.Fingerprint())
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	_ = s.Run(ctx)
	return 0
}

// startChildServer starts a server process on addr and waits until it
// listens.
func startChildServer(t *testing.T, dir, addr string) (cmd *exec.Cmd, listening, fingerprint string) {
	t.Helper()
	cmd = exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), restartChildEnv+"="+dir, restartAddrEnv+"="+addr)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err, "the server process did not start")
	f := strings.Fields(line)
	require.Len(t, f, 2)
	return cmd, f[0], f[1]
}

// TestClientNoticesARestartAtOnce: a server process is SIGKILLed (no
// CONNECTION_CLOSE reaches anyone) and a new one starts on the same UDP
// port with the same identity. The client's next packets reach the new
// process, which answers them with a stateless reset (its key derives from
// the identity), so the client learns at once that its connection is gone
// instead of waiting out the 15 s idle timeout.
func TestClientNoticesARestartAtOnce(t *testing.T) {
	dir := t.TempDir()
	first, addr, fp := startChildServer(t, dir, "127.0.0.1:0")
	cfg := ClientConfig{Addr: addr, Fingerprint: fp, Seed: 42, Generator: 3, Radius: 1, MaxBlock: 200, Logger: quietLog()}
	c := dial(t, cfg)
	firstDefault(t, c)

	require.NoError(t, first.Process.Signal(syscall.SIGKILL))
	_ = first.Wait()
	_, again, fpAgain := startChildServer(t, dir, addr)
	require.Equal(t, addr, again)
	require.Equal(t, fp, fpAgain, "same identity")
	restarted := time.Now()

	// As the game does every frame, the client keeps sending its car.
	frameT := time.NewTicker(10 * time.Millisecond)
	defer frameT.Stop()
	deadline := time.After(transport.IdleTimeout)
	for seq := uint32(1); ; seq++ {
		c.SendCar(wire.QuantiseCar(0, seq, 10, 1, 20, 0.5, 30))
		select {
		case <-c.Done():
		case <-frameT.C:
			continue
		case <-deadline:
			t.Fatal("the client did not notice the restart before the idle timeout")
		}
		break
	}
	noticed := time.Since(restarted)
	t.Logf("noticed the restart %v after the new server listened", noticed)
	var reset *quic.StatelessResetError
	require.True(t, errors.As(c.Err(), &reset), "ended by a stateless reset, not a timeout: %v", c.Err())

	// And a new connection to the restarted server works.
	c2 := dial(t, cfg)
	firstDefault(t, c2)
	assert.NoError(t, c2.Err())
}
