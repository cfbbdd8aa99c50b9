package wire_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
)

// A request carrying the messages of a failed one before it (and at
// most the partial reply) is its retry; a new user message, another
// purpose, an answered request or a user's abort before it start again
// at 1.
func TestAttempts(t *testing.T) {
	req := func(answer string, fault loop.ErrorKind, purpose loop.Purpose, msgs, kept int, appended ...string) wire.Record {
		return wire.Record{Purpose: purpose, Messages: msgs, Kept: kept, Appended: appended, Answer: answer, Fault: fault}
	}
	m, c := loop.PurposeMain, loop.PurposeCompact
	records := []wire.Record{
		req("529", loop.KindOverloaded, m, 1, 0, "user:text"),
		req("drop", loop.KindConnection, m, 1, 1),
		req("text", "", m, 1, 1), // third attempt
		req("text", "", m, 1, 1), // the one before was answered
		req("400", loop.KindPromptTooLong, m, 3, 1, "assistant:text", "user:text"),
		req("text", "", c, 3, 3), // a compaction, not a retry
		req("abort", "", m, 1, 0, "user:text"),
		req("text", "", m, 1, 1), // after a user's abort
		req("rejected", "", m, 2, 1, "user:text"),
		req("text", "", m, 2, 2),
		req("500", loop.KindServer, m, 2, 2),
		req("text", "", m, 3, 2, "user:text"), // a message more
		req("drop", loop.KindConnection, m, 3, 3),
		req("text", "", m, 4, 3, "assistant:text"), // the partial reply resent: a retry
	}
	assert.Equal(t, []int{1, 2, 3, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 2}, wire.Attempts(records))
	assert.Empty(t, wire.Attempts(nil))
}

// A harness fault and a client gone before the answer leave the request
// unanswered too: the next one with the same messages is its retry.
// Another purpose, a dropped message or a new user message after the
// failure start again at 1.
func TestAttemptsAfterEveryUnansweredKind(t *testing.T) {
	m, c := loop.PurposeMain, loop.PurposeCompact
	for _, prev := range []wire.Record{
		{Purpose: m, Messages: 2, Answer: "fault"},
		{Purpose: m, Messages: 2, Answer: "gone"},
		{Purpose: m, Messages: 2, Answer: "rejected"},
		{Purpose: m, Messages: 2, Answer: "429", Fault: loop.KindRateLimited},
	} {
		retry := wire.Record{Purpose: m, Messages: 2, Kept: 2}
		assert.Equal(t, []int{1, 2}, wire.Attempts([]wire.Record{prev, retry}), prev.Answer)
		assert.Equal(t, []int{1, 1}, wire.Attempts([]wire.Record{prev, {Purpose: c, Messages: 2, Kept: 2}}), "%s, then another purpose", prev.Answer)
		assert.Equal(t, []int{1, 1}, wire.Attempts([]wire.Record{prev, {Purpose: m, Messages: 2, Kept: 1, Appended: []string{"assistant:text"}}}),
			"%s, then a message changed", prev.Answer)
		assert.Equal(t, []int{1, 1}, wire.Attempts([]wire.Record{prev, {Purpose: m, Messages: 2, Kept: 2, Dropped: 1}}), "%s, then a message dropped", prev.Answer)
		assert.Equal(t, []int{1, 1}, wire.Attempts([]wire.Record{prev, {Purpose: m, Messages: 3, Kept: 2, Appended: []string{"assistant:text", "user:text"}}}),
			"%s, then a user message after the partial reply", prev.Answer)
	}
	assert.Equal(t, []int{1, 1}, wire.Attempts([]wire.Record{{Purpose: m, Messages: 2, Answer: "text"}, {Purpose: m, Messages: 2, Kept: 2}}),
		"an answered request has no retry")
}
