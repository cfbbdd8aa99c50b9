package main

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lockedBuilder is a strings.Builder safe for the server goroutine and
// the test.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestServePreset: serve -preset makes the agent's home with its config
// naming the server, prints HOME=... after the APIs' variables and the
// command on stderr, and removes the home when stopped.
func TestServePreset(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	old := serveSignals
	serveSignals = func() (<-chan os.Signal, func()) { return sigs, func() {} }
	defer func() { serveSignals = old }()
	r, w := io.Pipe()
	var errOut lockedBuilder
	done := make(chan int)
	go func() {
		done <- dispatch([]string{"serve", "-preset", "codex", "-cmd", "/opt/x/codex", library + "cc-truncation-recovery.yaml"}, w, &errOut)
		w.Close()
	}()
	br := bufio.NewReader(r)
	var url, home string
	for home == "" {
		line, err := br.ReadString('\n')
		require.NoError(t, err, errOut.String())
		line = strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(line, "ANTHROPIC_BASE_URL="); ok {
			url = v
		}
		if v, ok := strings.CutPrefix(line, "HOME="); ok {
			home = v
		}
	}
	go io.Copy(io.Discard, br) //nolint:errcheck // drain
	config, err := os.ReadFile(filepath.Join(home, ".codex", "config.toml"))
	require.NoError(t, err)
	assert.Contains(t, string(config), `base_url = "`+url+`/v1"`)
	sigs <- os.Interrupt
	select {
	case code := <-done:
		assert.Equal(t, exitPass, code, errOut.String())
	case <-time.After(10 * time.Second):
		require.FailNow(t, "serve did not stop on interrupt")
	}
	assert.Contains(t, errOut.String(), `/opt/x/codex exec --skip-git-repo-check`)
	assert.NoDirExists(t, home, "the home is removed when the server stops")

	code, _, errText := runCLI(t, "serve", "-preset", "nope")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errText, `no preset "nope"`)
}
