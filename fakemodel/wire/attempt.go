package wire

// Attempts numbers each record's attempt, as a trace of the loop numbers
// a request's: 1, or one more than the record before it when it is that
// record's retry. A record is the retry of the one before it when that
// one got no answer (a failure the model played, a refusal, a harness
// fault, a client gone before the answer; not a user's abort) and it
// carries the same messages for the same purpose: all of them kept,
// none dropped or appended.
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
	return unanswered && rec.Purpose == prev.Purpose && rec.Messages == prev.Messages &&
		rec.Kept == prev.Messages && rec.Dropped == 0 && len(rec.Appended) == 0
}
