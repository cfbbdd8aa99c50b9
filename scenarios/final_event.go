package scenarios

import (
	"encoding/json"
	"strings"
)

// FinalEvent is an agent's last word: the type, and the subtype where
// there is one, of the last JSON object line of stdout; else the last
// line of output (at most 60 characters).
func FinalEvent(stdout, last string) string {
	lines := strings.Split(stdout, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		line := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var ev struct {
			Type    string `json:"type"`
			Subtype string `json:"subtype"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil || ev.Type == "" {
			continue
		}
		if ev.Subtype != "" {
			return ev.Type + "/" + ev.Subtype
		}
		return ev.Type
	}
	if r := []rune(last); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return last
}
