package wire

import "strings"

// Attempts numbers each record's attempt, as a trace of the loop numbers
// a request's: 1, or one more than the record before it when it is that
// record's retry. A record is the retry of the one before it when that
// one got no answer (a failure the model played, a refusal, a harness
// fault, a client gone before the answer; not a user's abort) and it
// carries that one's messages for the same purpose, all of them kept and
// none dropped, with no user message after them: the same messages, or
// those and the part of the reply that arrived before the failure (as
// Codex resends a dropped stream's partial text).
func Attempts(records []Record) []int {
	out := make([]int, len(records))
	for i, rec := range records {
		out[i] = 1
		if i > 0 && retries(records[i-1], rec) {
			out[i] = out[i-1] + 1
		}
	}
	return out
}

func retries(prev, rec Record) bool {
	unanswered := prev.Fault != "" || prev.Answer == "rejected" || prev.Answer == "fault" || prev.Answer == "gone"
	if !unanswered || rec.Purpose != prev.Purpose || rec.Kept != prev.Messages || rec.Dropped != 0 {
		return false
	}
	for _, shape := range rec.Appended {
		if strings.HasPrefix(shape, "user:") {
			return false
		}
	}
	return true
}
