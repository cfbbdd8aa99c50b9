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

// TailRule says how many of the newest rounds a compaction keeps
// verbatim.
type TailRule string

// Tail rules.
const (
	// TailExchanges keeps the policy's PreserveTailExchanges rounds.
	TailExchanges TailRule = "exchanges"
	// TailHalf keeps the newest rounds until they make up more than half
	// the size of all the rounds.
	TailHalf TailRule = "half"
	// TailHalfCapped keeps as TailHalf does, but never more rounds than
	// TailHalf keeps of as many rounds of equal size: a heavy newest round
	// is kept alone, a heavy oldest round does not make every other round
	// kept.
	TailHalfCapped TailRule = "half_capped"
	// TailNone keeps nothing: every round is summarised.
	TailNone TailRule = "none"
	// TailNoneOnRapidRefill keeps nothing when the compaction is a rapid
	// refill (the threshold reached again within RapidRefillWindow
	// replies of the last compaction), else what TailExchanges keeps.
	TailNoneOnRapidRefill TailRule = "none_on_rapid_refill"
)

// halfTail is how many of the newest rounds of msgs make up more than half
// the size (in tokens) of all its rounds; a leading prompt (or summary),
// the messages before the first reply, is not counted. [tailStart] still
// leaves the oldest round to be summarised. With capped, the count is at
// most the one for as many rounds of equal size.
func halfTail(msgs []Message, capped bool) int {
	starts := Exchanges(msgs)
	if len(msgs) > 0 && msgs[0].Role != RoleAssistant {
		starts = starts[1:] // the prompt, not a round
	}
	sizes := make([]int, len(starts))
	for i, st := range starts {
		end := len(msgs)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		sizes[i] = SumTokens(msgs[st:end])
	}
	n := newestHalf(sizes)
	if capped {
		equal := make([]int, len(sizes))
		for i := range equal {
			equal[i] = 1
		}
		n = min(n, newestHalf(equal))
	}
	return n
}

// newestHalf is how many of the newest sizes make up more than half their
// total (all of them when none do, as for an empty list).
func newestHalf(sizes []int) int {
	total := 0
	for _, s := range sizes {
		total += s
	}
	kept := 0
	for k := len(sizes) - 1; k >= 0; k-- {
		kept += sizes[k]
		if 2*kept > total {
			return len(sizes) - k
		}
	}
	return len(sizes)
}
