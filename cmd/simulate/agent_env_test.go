package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// simulate agent runs the command in a clean environment with -env's
// variables; -inherit-env passes the whole environment on.
func TestAgentEnvironmentFlags(t *testing.T) {
	bin := testAgent(t)
	t.Setenv("IS_SANDBOX", "1")
	show := `printf 'extra=%s sandbox=%s\n' "${EXTRA-unset}" "${IS_SANDBOX-unset}" >&2; exec ` + bin
	code, out, _ := runCLI(t, "agent", "-v", "-env", "EXTRA=yes", "--cmd", show, library+"cc-truncation-recovery.yaml")
	assert.Equal(t, exitPass, code, out)
	assert.Contains(t, out, "extra=yes sandbox=unset")

	code, out, _ = runCLI(t, "agent", "-v", "-inherit-env", "--cmd", show, library+"cc-truncation-recovery.yaml")
	assert.Equal(t, exitPass, code, out)
	assert.Contains(t, out, "extra=unset sandbox=1")

	code, _, errOut := runCLI(t, "agent", "-env", "NOVALUE", "--cmd", bin, library+"cc-truncation-recovery.yaml")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, `want NAME=VALUE, got "NOVALUE"`)
}
