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
