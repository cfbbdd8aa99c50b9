package scenarios

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFinalEvent(t *testing.T) {
	assert.Equal(t, "result/success", FinalEvent("{\"type\":\"system\"}\n{\"type\":\"result\",\"subtype\":\"success\"}\n", ""))
	assert.Equal(t, "turn.failed", FinalEvent("{\"type\":\"turn.failed\"}\nnot json\n", ""))
	assert.Equal(t, "Error: quota", FinalEvent("plain", "Error: quota"))
	long := string(make([]rune, 70))
	assert.Len(t, []rune(FinalEvent("", long)), 61)
}
