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

// tailStart returns the index where the newest keep exchanges begin,
// keeping at least one older exchange out of the tail; len(msgs) when
// nothing is kept.
func tailStart(msgs []Message, keep int) int {
	starts := Exchanges(msgs)
	if keep <= 0 || len(starts) < 2 {
		return len(msgs)
	}
	keep = min(keep, len(starts)-1)
	return starts[len(starts)-keep]
}
