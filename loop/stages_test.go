package loop

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// conversation builds prompt, then n exchanges of a tool_use and its
// result, each message `size` tokens.
func conversation(n, size int) []Message {
	msgs := []Message{{ID: "u0", Role: RoleUser, Tokens: size, Blocks: []Block{{Type: BlockText, Text: "go"}}}}
	for i := 1; i <= n; i++ {
		id := "t" + string(rune('a'+i-1))
		msgs = append(msgs,
			Message{ID: "a" + id, Role: RoleAssistant, Tokens: size, Blocks: []Block{{Type: BlockToolUse, ID: id, Name: "read", Input: "{}"}}},
			Message{ID: "r" + id, Role: RoleUser, Tokens: size, Blocks: []Block{{Type: BlockToolResult, ToolUseID: id, Text: "data", Tokens: size}}})
	}
	return msgs
}

func ids(msgs []Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.ID)
	}
	return out
}

func TestExchanges(t *testing.T) {
	assert.Equal(t, []int{0, 1, 3}, Exchanges(conversation(2, 1)))
	assert.Equal(t, 3, tailStart(conversation(3, 1), 2), "tailStart keeps 2 of 4")
	assert.Equal(t, 3, tailStart(conversation(1, 1), 5), "tailStart after the prompt and one round keeps nothing")
	assert.Equal(t, 3, tailStart(conversation(2, 1), 5), "tailStart summarises at least one round")
	assert.Equal(t, 1, tailStart(conversation(0, 1), 2), "tailStart of one exchange keeps nothing")
}

func TestOldestSnipperDropsWholeExchanges(t *testing.T) {
	msgs := conversation(4, 100) // 9 messages, 900 tokens
	res := OldestSnipper{}.Snip(SnipInput{Messages: msgs, Tokens: 900, Threshold: 600, KeepRecent: 2})
	if diff := cmp.Diff([]string{"u0", "ata", "rta", "atb", "rtb"}, res.Removed); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	assert.Equal(t, 500, res.TokensFreed)
	assert.Len(t, res.Messages, 4)
	under := OldestSnipper{}.Snip(SnipInput{Messages: msgs, Tokens: 500, Threshold: 600, KeepRecent: 2})
	assert.Empty(t, under.Removed, "snipped under the threshold")
	assert.Len(t, under.Messages, len(msgs))
	keep := OldestSnipper{}.Snip(SnipInput{Messages: msgs, Tokens: 900, Threshold: 1, KeepRecent: 6})
	assert.Len(t, keep.Messages, 6, "snip drops every exchange before the newest 6 and none of them: %v", ids(keep.Messages))
}

func TestKeepRecentMicrocompactor(t *testing.T) {
	msgs := conversation(4, 100)
	res := KeepRecentMicrocompactor{}.Microcompact(MicrocompactInput{Messages: msgs, KeepRecent: 1})
	require.Equal(t, 3, res.Cleared, "cleared")
	for i, m := range res.Messages {
		if !m.IsToolResult() {
			continue
		}
		cleared := m.Blocks[0].Text == ClearedToolResult
		assert.Equal(t, i < len(msgs)-1, cleared, "message %s cleared", m.ID)
		if cleared {
			assert.Zero(t, m.Tokens, "cleared message %s keeps its size; the loop must re-estimate it", m.ID)
		}
	}
	assert.Equal(t, "data", msgs[2].Blocks[0].Text, "microcompact modified its input")
	again := KeepRecentMicrocompactor{}.Microcompact(MicrocompactInput{Messages: res.Messages, KeepRecent: 1})
	assert.Zero(t, again.Cleared, "cleared already-cleared results again")
}

func TestSpanCollapserStagesThenCommits(t *testing.T) {
	msgs := conversation(6, 100) // 13 messages
	in := CollapseInput{Messages: msgs, Tokens: 1300, StageAt: 1000, CommitAt: 1200, KeepRecent: 4}
	staged := SpanCollapser{}.Collapse(in)
	require.Zero(t, staged.Committed, "the first pass commits nothing")
	require.Len(t, staged.Staged, 1, "the first pass stages one span")
	in.Staged = staged.Staged
	done := SpanCollapser{}.Drain(in)
	require.Equal(t, 1, done.Committed, "the drain commits the span")
	require.Empty(t, done.Staged)
	assert.Len(t, done.Messages, len(msgs)-len(done.Removed)+1, "the drain folds what it removed into one message")
	assert.True(t, strings.HasPrefix(done.Messages[0].Text(), "[collapsed"), "the first message is the fold: %q", done.Messages[0].Text())
	checkPairs(t, done.Messages)
	none := SpanCollapser{}.Drain(CollapseInput{Messages: msgs})
	assert.Zero(t, none.Committed, "a drain with nothing staged")
	assert.Len(t, none.Messages, len(msgs), "a drain with nothing staged keeps the messages")
}

func TestToolResultBudgetTruncatesLargestFirst(t *testing.T) {
	msgs := []Message{{ID: "r", Role: RoleUser, Blocks: []Block{
		{Type: BlockToolResult, ToolUseID: "a", Tokens: 30_000},
		{Type: BlockToolResult, ToolUseID: "b", Tokens: 60_000},
	}, Tokens: 90_000}}
	out, n := applyToolResultBudget(msgs, 0, 50_000)
	assert.Equal(t, 1, n, "results truncated")
	assert.Equal(t, 30_000, out[0].Blocks[0].Tokens)
	assert.Equal(t, 20_000, out[0].Blocks[1].Tokens)
	assert.Equal(t, 60_000, msgs[0].Blocks[1].Tokens, "the budget modified its input")
}

func TestUsageCounterAnchorsOnLastUsage(t *testing.T) {
	msgs := conversation(2, 100)
	assert.Equal(t, 500, (UsageCounter{}).Count(msgs), "without usage: the sum")
	msgs[3].Usage = &Usage{InputTokens: 1000, CacheReadInputTokens: 500, OutputTokens: 100}
	assert.Equal(t, 1700, (UsageCounter{}).Count(msgs), "anchored: 1600 + the 100 after")
}

// checkPairs fails the test unless every tool_use in msgs has exactly one
// tool_result after it and every tool_result answers a tool_use.
func checkPairs(t *testing.T, msgs []Message) {
	t.Helper()
	uses, results := map[string]int{}, map[string]int{}
	for _, m := range msgs {
		for _, b := range m.Blocks {
			switch b.Type {
			case BlockToolUse:
				uses[b.ID]++
			case BlockToolResult:
				assert.Positive(t, uses[b.ToolUseID], "tool_result for %s has a tool_use before it", b.ToolUseID)
				results[b.ToolUseID]++
			}
		}
	}
	for id := range uses {
		assert.Equal(t, 1, results[id], "tool_results of tool_use %s", id)
	}
}

func TestMicrocompactOwnedAndIncremental(t *testing.T) {
	msgs := conversation(6, 100)
	first := KeepRecentMicrocompactor{}.Microcompact(MicrocompactInput{Messages: msgs, KeepRecent: 2, Owned: true})
	require.Equal(t, 4, first.Cleared, "the owned pass")
	require.Same(t, &msgs[0], &first.Messages[0], "the owned pass works on the list itself")
	assert.Equal(t, ClearedToolResult, msgs[2].Blocks[0].Text, "the owned pass replaces the entry in place")
	// a new exchange pushes one more result out of the window; the
	// incremental pass clears it and stops at the first cleared one
	msgs = append(msgs, conversation(7, 100)[13:]...)
	msgs[len(msgs)-1].ID, msgs[len(msgs)-2].ID = "new-r", "new-a"
	// an old result wrongly uncleared behind a cleared one is not seen
	msgs[2].Blocks = []Block{{Type: BlockToolResult, ToolUseID: "ta", Text: "data"}}
	inc := KeepRecentMicrocompactor{}.Microcompact(MicrocompactInput{Messages: msgs, KeepRecent: 2, Owned: true, Incremental: true})
	assert.Equal(t, 1, inc.Cleared, "the incremental pass")
	assert.Equal(t, "data", msgs[2].Blocks[0].Text, "the incremental pass does not reach back")
	full := KeepRecentMicrocompactor{}.Microcompact(MicrocompactInput{Messages: msgs, KeepRecent: 2})
	assert.Equal(t, 1, full.Cleared, "a full pass finds every result past the window")
	assert.Equal(t, ClearedToolResult, full.Messages[2].Blocks[0].Text)
}
