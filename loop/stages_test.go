package loop

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
	if got := Exchanges(conversation(2, 1)); !cmp.Equal(got, []int{0, 1, 3}) {
		t.Errorf("Exchanges = %v", got)
	}
	if got := tailStart(conversation(3, 1), 2); got != 3 {
		t.Errorf("tailStart keep 2 of 4 = %d, want 3", got)
	}
	if got := tailStart(conversation(1, 1), 5); got != 1 {
		t.Errorf("tailStart never keeps every exchange: %d, want 1", got)
	}
	if got := tailStart(conversation(0, 1), 2); got != 1 {
		t.Errorf("tailStart of one exchange = %d, want 1 (nothing kept)", got)
	}
}

func TestOldestSnipperDropsWholeExchanges(t *testing.T) {
	msgs := conversation(4, 100) // 9 messages, 900 tokens
	res := OldestSnipper{}.Snip(SnipInput{Messages: msgs, Tokens: 900, Threshold: 600, KeepRecent: 2})
	if diff := cmp.Diff([]string{"u0", "ata", "rta", "atb", "rtb"}, res.Removed); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	if res.TokensFreed != 500 || len(res.Messages) != 4 {
		t.Errorf("freed %d, %d left", res.TokensFreed, len(res.Messages))
	}
	under := OldestSnipper{}.Snip(SnipInput{Messages: msgs, Tokens: 500, Threshold: 600, KeepRecent: 2})
	if len(under.Removed) != 0 || len(under.Messages) != len(msgs) {
		t.Errorf("snipped under the threshold: %v", under.Removed)
	}
	keep := OldestSnipper{}.Snip(SnipInput{Messages: msgs, Tokens: 900, Threshold: 1, KeepRecent: 6})
	if len(keep.Messages) < 6 {
		t.Errorf("snip dropped into the newest 6: %v", ids(keep.Messages))
	}
}

func TestKeepRecentMicrocompactor(t *testing.T) {
	msgs := conversation(4, 100)
	res := KeepRecentMicrocompactor{}.Microcompact(MicrocompactInput{Messages: msgs, KeepRecent: 1})
	if res.Cleared != 3 {
		t.Fatalf("cleared %d, want 3", res.Cleared)
	}
	for i, m := range res.Messages {
		if !m.IsToolResult() {
			continue
		}
		cleared := m.Blocks[0].Text == ClearedToolResult
		if cleared != (i < len(msgs)-1) {
			t.Errorf("message %s cleared=%t", m.ID, cleared)
		}
		if cleared && m.Tokens != 0 {
			t.Errorf("cleared message %s keeps size %d; the loop must re-estimate it", m.ID, m.Tokens)
		}
	}
	if msgs[2].Blocks[0].Text != "data" {
		t.Error("microcompact modified its input")
	}
	again := KeepRecentMicrocompactor{}.Microcompact(MicrocompactInput{Messages: res.Messages, KeepRecent: 1})
	if again.Cleared != 0 {
		t.Errorf("cleared already-cleared results again: %d", again.Cleared)
	}
}

func TestSpanCollapserStagesThenCommits(t *testing.T) {
	msgs := conversation(6, 100) // 13 messages
	in := CollapseInput{Messages: msgs, Tokens: 1300, StageAt: 1000, CommitAt: 1200, KeepRecent: 4}
	staged := SpanCollapser{}.Collapse(in)
	if staged.Committed != 0 || len(staged.Staged) != 1 {
		t.Fatalf("first pass: committed %d, staged %v", staged.Committed, staged.Staged)
	}
	in.Staged = staged.Staged
	done := SpanCollapser{}.Drain(in)
	if done.Committed != 1 || len(done.Staged) != 0 {
		t.Fatalf("drain: committed %d staged %v", done.Committed, done.Staged)
	}
	if len(done.Messages) != len(msgs)-len(done.Removed)+1 {
		t.Errorf("drain left %d messages after removing %d of %d", len(done.Messages), len(done.Removed), len(msgs))
	}
	if !strings.HasPrefix(done.Messages[0].Text(), "[collapsed") {
		t.Errorf("first message is not the fold: %q", done.Messages[0].Text())
	}
	checkPairs(t, done.Messages)
	none := SpanCollapser{}.Drain(CollapseInput{Messages: msgs})
	if none.Committed != 0 || len(none.Messages) != len(msgs) {
		t.Errorf("drain with nothing staged changed the messages")
	}
}

func TestToolResultBudgetTruncatesLargestFirst(t *testing.T) {
	msgs := []Message{{ID: "r", Role: RoleUser, Blocks: []Block{
		{Type: BlockToolResult, ToolUseID: "a", Tokens: 30_000},
		{Type: BlockToolResult, ToolUseID: "b", Tokens: 60_000},
	}, Tokens: 90_000}}
	out, n := applyToolResultBudget(msgs, 0, 50_000)
	if n != 1 || out[0].Blocks[1].Tokens != 20_000 || out[0].Blocks[0].Tokens != 30_000 {
		t.Errorf("budget: %d truncated, blocks %+v", n, out[0].Blocks)
	}
	if msgs[0].Blocks[1].Tokens != 60_000 {
		t.Error("budget modified its input")
	}
}

func TestUsageCounterAnchorsOnLastUsage(t *testing.T) {
	msgs := conversation(2, 100)
	if got := (UsageCounter{}).Count(msgs); got != 500 {
		t.Errorf("without usage: %d, want the sum 500", got)
	}
	msgs[3].Usage = &Usage{InputTokens: 1000, CacheReadInputTokens: 500, OutputTokens: 100}
	if got := (UsageCounter{}).Count(msgs); got != 1700 {
		t.Errorf("anchored: %d, want 1600 + 100 after", got)
	}
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
				if uses[b.ToolUseID] == 0 {
					t.Errorf("tool_result for %s has no tool_use before it", b.ToolUseID)
				}
				results[b.ToolUseID]++
			}
		}
	}
	for id := range uses {
		if results[id] != 1 {
			t.Errorf("tool_use %s has %d tool_results", id, results[id])
		}
	}
}

func TestMicrocompactOwnedAndIncremental(t *testing.T) {
	msgs := conversation(6, 100)
	first := KeepRecentMicrocompactor{}.Microcompact(MicrocompactInput{Messages: msgs, KeepRecent: 2, Owned: true})
	if first.Cleared != 4 || &first.Messages[0] != &msgs[0] {
		t.Fatalf("owned pass: cleared %d, copied the list: %t", first.Cleared, &first.Messages[0] != &msgs[0])
	}
	if msgs[2].Blocks[0].Text != ClearedToolResult {
		t.Error("owned pass did not replace the entry in place")
	}
	// a new exchange pushes one more result out of the window; the
	// incremental pass clears it and stops at the first cleared one
	msgs = append(msgs, conversation(7, 100)[13:]...)
	msgs[len(msgs)-1].ID, msgs[len(msgs)-2].ID = "new-r", "new-a"
	// an old result wrongly uncleared behind a cleared one is not seen
	msgs[2].Blocks = []Block{{Type: BlockToolResult, ToolUseID: "ta", Text: "data"}}
	inc := KeepRecentMicrocompactor{}.Microcompact(MicrocompactInput{Messages: msgs, KeepRecent: 2, Owned: true, Incremental: true})
	if inc.Cleared != 1 || msgs[2].Blocks[0].Text != "data" {
		t.Errorf("incremental pass cleared %d (want 1) and reached back to %q", inc.Cleared, msgs[2].Blocks[0].Text)
	}
	full := KeepRecentMicrocompactor{}.Microcompact(MicrocompactInput{Messages: msgs, KeepRecent: 2})
	if full.Cleared != 1 || full.Messages[2].Blocks[0].Text != ClearedToolResult {
		t.Errorf("a full pass must find every result past the window: cleared %d", full.Cleared)
	}
}
