package fakemodel

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/loopsim/loopsim/loop"
)

// TestRecordedHistory: a request's record describes its newest message,
// whatever the history's length, and is empty for an empty history.
func TestRecordedHistory(t *testing.T) {
	m := &Model{Script: []Step{{Text: "ok", Repeat: Forever}}}
	for _, msgs := range [][]loop.Message{
		nil,
		{{ID: "m1", Role: loop.RoleUser, Tokens: 7}},
		{{ID: "m1", Role: loop.RoleUser, Tokens: 7}, {ID: "m2", Role: loop.RoleAssistant, Tokens: 3}},
	} {
		_, _, err := stream(t, m, loop.Request{Purpose: loop.PurposeMain, Model: "m", MaxTokens: 100, InputTokens: 10, Messages: msgs})
		assert.NoError(t, err)
	}
	want := []Seen{
		{},
		{Messages: 1, LastID: "m1", LastKind: "user", LastTokens: 7},
		{Messages: 2, LastID: "m2", LastKind: "assistant", LastTokens: 3},
	}
	var got []Seen
	for _, r := range m.Requests {
		got = append(got, r.History)
	}
	assert.Equal(t, want, got)
}
