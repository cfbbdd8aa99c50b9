package loop

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// rounds is a prompt of promptTokens and n tool rounds of roundTokens
// (the reply a fifth, the result the rest).
func rounds(promptTokens, n, roundTokens int) []Message {
	msgs := []Message{{Role: RoleUser, Tokens: promptTokens}}
	for range n {
		msgs = append(msgs, Message{Role: RoleAssistant, Tokens: roundTokens / 5},
			Message{Role: RoleUser, Tokens: roundTokens - roundTokens/5})
	}
	return msgs
}

// keptRounds is how many rounds a compaction under the half rule keeps.
func keptRounds(msgs []Message) int {
	return (len(msgs) - tailStart(msgs, halfTail(msgs, true))) / 2
}

// The released agent kept, after 2, 3, 4, 5, 6, 8, 9 and 11 rounds of one
// size, 1, 2, 3, 3, 4, 5, 5 and 6 of them, whatever the prompt's size.
func TestHalfTailKeepsWhatTheAgentKept(t *testing.T) {
	want := map[int]int{1: 0, 2: 1, 3: 2, 4: 3, 5: 3, 6: 4, 8: 5, 9: 5, 11: 6}
	for _, prompt := range []int{5, 3000} {
		for n, kept := range want {
			t.Run(fmt.Sprintf("prompt %d, %d rounds", prompt, n), func(t *testing.T) {
				assert.Equal(t, kept, keptRounds(rounds(prompt, n, 90)))
			})
		}
	}
}

// The rule weighs rounds by size: one large newest round is more than half.
func TestHalfTailWeighsBySize(t *testing.T) {
	msgs := rounds(100, 4, 90)
	msgs[len(msgs)-1].Tokens = 1000
	assert.Equal(t, 1, halfTail(msgs, false))
	assert.Equal(t, 1, keptRounds(msgs))
	// a conversation that starts with a reply has no prompt to leave out
	assert.Equal(t, 3, halfTail(rounds(100, 4, 90)[1:], false))
	assert.Equal(t, 2, halfTail(rounds(100, 3, 90)[1:], false))
	assert.Equal(t, 0, halfTail(nil, false))
}

// Capped, a large oldest round does not make every newer round kept: no
// more are kept than of rounds of equal size (the released agent kept 3
// of 5 rounds with the oldest twenty times the others'; observed
// compact-reactive-5-rounds-big-oldest), while a large newest round is
// still kept alone (compact-reactive-5-rounds-big-newest).
func TestHalfTailCapped(t *testing.T) {
	oldest := rounds(100, 5, 90)
	oldest[2].Tokens = 2000
	assert.Equal(t, 5, halfTail(oldest, false), "by size every round")
	assert.Equal(t, 3, halfTail(oldest, true), "capped at the count for equal rounds")
	newest := rounds(100, 5, 90)
	newest[len(newest)-1].Tokens = 2000
	assert.Equal(t, 1, halfTail(newest, true))
}
