package loop

// Exchanges splits msgs into API rounds: a new round starts at every
// assistant message; messages before the first assistant message form the
// first round. It returns the start index of each round.
func Exchanges(msgs []Message) []int {
	var starts []int
	for i, m := range msgs {
		if i == 0 || m.Role == RoleAssistant {
			starts = append(starts, i)
		}
	}
	return starts
}

// tailStart returns the index where the newest keep exchanges begin;
// len(msgs) when nothing is kept. At least one round (an exchange that
// begins with a reply) is left out of the tail to be summarised, besides
// a leading prompt: after the prompt and one round nothing is kept, as
// the released agent does.
func tailStart(msgs []Message, keep int) int {
	starts := Exchanges(msgs)
	rounds := len(starts)
	if len(msgs) > 0 && msgs[0].Role != RoleAssistant {
		rounds-- // the first exchange is the prompt, not a round
	}
	keep = min(keep, rounds-1)
	if keep <= 0 {
		return len(msgs)
	}
	return starts[len(starts)-keep]
}
