package adapter

import (
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/loopsim/loopsim/loop"
)

// Every row of the status table, in the loop's terms.
func TestClassifyPutsAnAnswerInTheLoopsTerms(t *testing.T) {
	for _, c := range []struct {
		name   string
		answer Answer
		want   loop.RequestError
	}{
		{name: "an error in a stream that had begun",
			answer: Answer{Status: 200, Message: "boom", RetryAfterMS: 5},
			want:   loop.RequestError{Kind: loop.KindStream, Message: "boom", RetryAfterMS: 5}},
		{name: "the last 2xx is a stream's too",
			answer: Answer{Status: 299, Message: "boom"},
			want:   loop.RequestError{Kind: loop.KindStream, Message: "boom"}},
		{name: "a 300 is no stream's",
			answer: Answer{Status: 300, Message: "moved"},
			want:   loop.RequestError{Kind: loop.KindOther, Status: 300, Message: "moved"}},
		{name: "prompt too long with its figures",
			answer: Answer{Status: 400, Message: "too many", PromptTooLong: true, Tokens: 210_000, Maximum: 200_000},
			want:   *loop.PromptTooLongError(210_000, 200_000)},
		{name: "the least figures",
			answer: Answer{Status: 400, Message: "too many", PromptTooLong: true, Tokens: 1, Maximum: 1},
			want:   *loop.PromptTooLongError(1, 1)},
		{name: "prompt too long without the maximum keeps the message",
			answer: Answer{Status: 400, Message: "too many", PromptTooLong: true, Tokens: 210_000},
			want:   loop.RequestError{Kind: loop.KindPromptTooLong, Status: 400, Message: "too many"}},
		{name: "prompt too long without the tokens keeps the message",
			answer: Answer{Status: 400, Message: "too many", PromptTooLong: true, Maximum: 200_000},
			want:   loop.RequestError{Kind: loop.KindPromptTooLong, Status: 400, Message: "too many"}},
		{name: "prompt too long is a 400's",
			answer: Answer{Status: 500, Message: "too many", PromptTooLong: true, Tokens: 2, Maximum: 1},
			want:   loop.RequestError{Kind: loop.KindServer, Status: 500, Message: "too many"}},
		{name: "media too large",
			answer: Answer{Status: 400, Message: "image exceeds", MediaTooLarge: true},
			want:   loop.RequestError{Kind: loop.KindMediaTooLarge, Status: 400, Message: "image exceeds"}},
		{name: "prompt too long comes before media",
			answer: Answer{Status: 400, Message: "both", PromptTooLong: true, MediaTooLarge: true},
			want:   loop.RequestError{Kind: loop.KindPromptTooLong, Status: 400, Message: "both"}},
		{name: "any other 400",
			answer: Answer{Status: 400, Message: "bad"},
			want:   loop.RequestError{Kind: loop.KindInvalidRequest, Status: 400, Message: "bad"}},
		{name: "413",
			answer: Answer{Status: 413, Message: "big"},
			want:   loop.RequestError{Kind: loop.KindRequestTooLarge, Status: 413, Message: "big"}},
		{name: "429 with its retry-after",
			answer: Answer{Status: 429, Message: "slow", RetryAfterMS: 1500},
			want:   loop.RequestError{Kind: loop.KindRateLimited, Status: 429, Message: "slow", RetryAfterMS: 1500}},
		{name: "an overload is 529 whatever its status",
			answer: Answer{Status: 503, Message: "busy", Overloaded: true},
			want:   loop.RequestError{Kind: loop.KindOverloaded, Status: 529, Message: "busy"}},
		{name: "a 429 is a rate limit even when said overloaded",
			answer: Answer{Status: 429, Message: "busy", Overloaded: true},
			want:   loop.RequestError{Kind: loop.KindRateLimited, Status: 429, Message: "busy"}},
		{name: "other 5xx keep their status",
			answer: Answer{Status: 503, Message: "down", RetryAfterMS: 7},
			want:   loop.RequestError{Kind: loop.KindServer, Status: 503, Message: "down", RetryAfterMS: 7}},
		{name: "the first 5xx",
			answer: Answer{Status: 500, Message: "x"},
			want:   loop.RequestError{Kind: loop.KindServer, Status: 500, Message: "x"}},
		{name: "the last 5xx",
			answer: Answer{Status: 599, Message: "x"},
			want:   loop.RequestError{Kind: loop.KindServer, Status: 599, Message: "x"}},
		{name: "past the 5xx",
			answer: Answer{Status: 600, Message: "x"},
			want:   loop.RequestError{Kind: loop.KindOther, Status: 600, Message: "x"}},
		{name: "any other status keeps it",
			answer: Answer{Status: 418, Message: "teapot", RetryAfterMS: 3},
			want:   loop.RequestError{Kind: loop.KindOther, Status: 418, Message: "teapot", RetryAfterMS: 3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, *Classify(c.answer))
		})
	}
}

func TestMessageFallsBackToTheBodyThenTheStatus(t *testing.T) {
	assert.Equal(t, "said", Message(400, "said", `{"x":1}`))
	assert.Equal(t, `{"x":1}`, Message(400, "", " {\"x\":1}\n"))
	assert.Equal(t, "Bad Gateway", Message(502, "", "  "))
}

func TestMentionsNeedsAVerbAndANoun(t *testing.T) {
	verbs, nouns := []string{"exceed", "too large"}, []string{"image", "pdf"}
	assert.True(t, Mentions("The IMAGE exceeds 5 MB", verbs, nouns))
	assert.True(t, Mentions("pdf too large", verbs, nouns))
	assert.False(t, Mentions("the image is blurry", verbs, nouns))
	assert.False(t, Mentions("the prompt exceeds the window", verbs, nouns))
}

func TestFailureMarksADropAfterTheStreamBegan(t *testing.T) {
	w := Wire{Pkg: "sdkmodel/x", Unit: "chunk"}
	drop := func() *loop.RequestError { return &loop.RequestError{Kind: loop.KindConnection, Message: "EOF"} }
	assert.Equal(t, &loop.RequestError{Kind: loop.KindConnection, Status: loop.StatusStreamBegun,
		Message: "the connection dropped after 3 stream chunks: EOF"}, w.Failure(drop(), io.EOF, 3))
	assert.Equal(t, &loop.RequestError{Kind: loop.KindConnection, Status: loop.StatusStreamBegun,
		Message: "the connection dropped after 1 stream chunks: EOF"}, w.Failure(drop(), io.EOF, 1))
	assert.Equal(t, drop(), w.Failure(drop(), io.EOF, 0), "before any chunk the drop is a plain one")
	assert.Equal(t, drop(), w.Failure(drop(), io.EOF, -1), "not a stream")
	busy := &loop.RequestError{Kind: loop.KindOverloaded, Status: 529, Message: "busy"}
	assert.Equal(t, busy, w.Failure(busy, errors.New("x"), 3), "only a connection is marked")
	err := w.Failure(nil, io.ErrClosedPipe, 3)
	assert.EqualError(t, err, "sdkmodel/x: io: read/write on closed pipe")
	assert.ErrorIs(t, err, io.ErrClosedPipe)
}

func TestConnectionIsAFailedConnectionOnly(t *testing.T) {
	assert.Equal(t, &loop.RequestError{Kind: loop.KindConnection, Message: "unexpected EOF"}, Connection(io.ErrUnexpectedEOF))
	assert.Nil(t, Connection(errors.New("400 bad request")))
	assert.Equal(t, http.StatusOK, loop.StatusStreamBegun, "the status of a stream that began")
}
