package adapter

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loopsim/loopsim/loop"
)

// script is a stream of events as plain data: each event is the text of
// the blocks it finishes ("" for none), "end" the end marker, "done" an
// event that ends the answer, "fail" an error event, "bad" a malformed
// one; err is the SDK's error once the events are read.
type script struct {
	events []string
	err    error
	at     int
	closed bool
}

func (s *script) Next() bool      { s.at++; return s.at <= len(s.events) }
func (s *script) Current() string { return s.events[s.at-1] }
func (s *script) Err() error      { return s.err }
func (s *script) Close() error    { s.closed = true; return nil }

// reader reads a script, holding one pending block it hands out at a
// stop, and noting the stops.
type reader struct {
	ended bool
	stops []Stop
}

func (r *reader) Read(ev string, yield func(loop.Block)) (bool, error) {
	switch ev {
	case "end":
		r.ended = true
	case "done":
		return true, nil
	case "fail":
		return false, &loop.RequestError{Kind: loop.KindStream, Message: "error event"}
	case "bad":
		return false, errors.New("out of order")
	case "":
	default:
		for _, text := range strings.Split(ev, ",") {
			yield(loop.Block{Type: loop.BlockText, Text: text})
		}
	}
	return false, nil
}

func (r *reader) Ended() bool { return r.ended }

func (r *reader) Stop(why Stop, yield func(loop.Block)) {
	r.stops = append(r.stops, why)
	yield(loop.Block{Type: loop.BlockText, Text: "pending"})
}

func (r *reader) Response() loop.Response { return loop.Response{StopReason: loop.StopEndTurn} }

var testWire = Wire{Pkg: "sdkmodel/x", Unit: "chunk", Unfinished: "ended after %d chunks without the end"}

// classifyDrops classifies every error as a dropped connection.
func classifyDrops(err error) *loop.RequestError {
	return &loop.RequestError{Kind: loop.KindConnection, Message: err.Error()}
}

// read reads s, collecting the blocks' texts.
func read(ctx context.Context, s *script, r *reader) ([]string, loop.Response, error) {
	var got []string
	resp, err := Read(ctx, testWire, s, r, classifyDrops, func(b loop.Block) { got = append(got, b.Text) })
	return got, resp, err
}

func TestReadHandsTheBlocksInOrder(t *testing.T) {
	for _, c := range []struct {
		name   string
		events []string
		err    error
		want   []string
		stops  []Stop
		fails  string
	}{
		{name: "an answer with its end marker", events: []string{"a", "", "b,c", "end"},
			want: []string{"a", "b", "c", "pending"}, stops: []Stop{Finished}},
		{name: "an event that ends the answer stops the reading", events: []string{"a", "done", "b"},
			want: []string{"a"}},
		{name: "no end marker is a dropped connection", events: []string{"a", "b"},
			want: []string{"a", "b", "pending"}, stops: []Stop{Unfinished}, fails: "connection: ended after 2 chunks without the end"},
		{name: "the SDK's error is classified", events: []string{"a", "b", "c"}, err: io.ErrUnexpectedEOF,
			want: []string{"a", "b", "c", "pending"}, stops: []Stop{Failed},
			fails: "200 connection: the connection dropped after 3 stream chunks: unexpected EOF"},
		{name: "an error event is the answer's failure", events: []string{"a", "fail", "b"},
			want: []string{"a"}, fails: "stream_error: error event"},
		{name: "a malformed event is no failure of the API", events: []string{"a", "", "bad"},
			want: []string{"a"}, fails: "sdkmodel/x: stream chunk 3: out of order"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, r := &script{events: c.events, err: c.err}, &reader{}
			got, resp, err := read(t.Context(), s, r)
			assert.Equal(t, c.want, got)
			assert.Equal(t, c.stops, r.stops)
			assert.True(t, s.closed, "the stream is closed")
			if c.fails == "" {
				require.NoError(t, err)
				assert.Equal(t, loop.StopEndTurn, resp.StopReason)
				return
			}
			assert.EqualError(t, err, c.fails)
			assert.Zero(t, resp)
		})
	}
	var re *loop.RequestError
	_, _, err := read(t.Context(), &script{events: []string{"fail"}}, &reader{})
	require.ErrorAs(t, err, &re, "an error event stays the API's failure")
	_, _, err = read(t.Context(), &script{events: []string{"a"}}, &reader{})
	require.ErrorAs(t, err, &re)
	assert.Equal(t, loop.KindConnection, re.Kind)
}

func TestReadStopsAtTheAbort(t *testing.T) {
	t.Run("between events the reader hands out what it holds", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		s, r := &script{events: []string{"a", "b", "end"}}, &reader{}
		var got []string
		_, err := Read(ctx, testWire, s, r, classifyDrops, func(b loop.Block) {
			got = append(got, b.Text)
			cancel()
		})
		assert.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, []string{"a", "pending"}, got)
		assert.Equal(t, []Stop{Aborted}, r.stops)
	})
	t.Run("within an event no block follows it", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		s, r := &script{events: []string{"a,b,c", "end"}}, &reader{}
		var got []string
		_, err := Read(ctx, testWire, s, r, classifyDrops, func(b loop.Block) {
			got = append(got, b.Text)
			cancel()
		})
		assert.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, []string{"a"}, got)
		assert.Empty(t, r.stops)
	})
	t.Run("after the last event", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		s, r := &script{events: []string{"a"}, err: io.EOF}, &reader{}
		s.events = append(s.events, "")
		var got []string
		_, err := Read(ctx, testWire, &cancelAtEnd{script: s, cancel: cancel}, r, classifyDrops, func(b loop.Block) { got = append(got, b.Text) })
		assert.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, []string{"a", "pending"}, got)
		assert.Equal(t, []Stop{Aborted}, r.stops)
	})
}

// cancelAtEnd cancels when its script runs out.
type cancelAtEnd struct {
	*script
	cancel context.CancelFunc
}

func (c *cancelAtEnd) Next() bool {
	if c.script.Next() {
		return true
	}
	c.cancel()
	return false
}

func TestAnsweredAndHand(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	assert.NoError(t, testWire.Answered(ctx, nil, classifyDrops))
	assert.Equal(t, &loop.RequestError{Kind: loop.KindConnection, Message: "EOF"}, testWire.Answered(ctx, io.EOF, classifyDrops),
		"no stream: never marked as begun")
	var got []string
	blocks := []loop.Block{{Text: "a"}, {Text: "b"}, {Text: "c"}}
	require.NoError(t, Hand(ctx, blocks, func(b loop.Block) { got = append(got, b.Text) }))
	assert.Equal(t, []string{"a", "b", "c"}, got)
	got = nil
	assert.ErrorIs(t, Hand(ctx, blocks, func(b loop.Block) { got = append(got, b.Text); cancel() }), context.Canceled)
	assert.Equal(t, []string{"a"}, got)
	assert.ErrorIs(t, testWire.Answered(ctx, io.EOF, classifyDrops), context.Canceled, "the abort wins over the failure")
}

func TestFromSeqEndsAtTheFirstError(t *testing.T) {
	seq := func(yield func(int, error) bool) {
		for i, err := range []error{nil, nil, io.ErrUnexpectedEOF, nil} {
			if !yield(i, err) {
				return
			}
		}
	}
	s := FromSeq(seq)
	var got []int
	for s.Next() {
		got = append(got, s.Current())
	}
	assert.Equal(t, []int{0, 1}, got)
	assert.ErrorIs(t, s.Err(), io.ErrUnexpectedEOF)
	assert.False(t, s.Next(), "no event after the error")
	require.NoError(t, s.Close())

	stopped := false
	s = FromSeq(func(yield func(int, error) bool) {
		defer func() { stopped = true }()
		yield(7, nil)
		yield(8, nil)
	})
	assert.True(t, s.Next())
	require.NoError(t, s.Close())
	assert.True(t, stopped, "Close stops the iterator")

	s = FromSeq(func(yield func(int, error) bool) { yield(7, nil) })
	assert.True(t, s.Next())
	assert.Equal(t, 7, s.Current())
	assert.False(t, s.Next())
	assert.NoError(t, s.Err())
	require.NoError(t, s.Close())
}
