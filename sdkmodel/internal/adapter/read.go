package adapter

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/loopsim/loopsim/loop"
)

// Events is a stream of an SDK's events, read one at a time: the
// anthropic and openai SDKs' ssestream.Stream have these methods;
// [FromSeq] makes one of an iterator (genai's).
type Events[E any] interface {
	Next() bool
	Current() E
	Err() error
	Close() error
}

// Stop says why a stream stopped, for what a [Reader] still holds.
type Stop int

const (
	// Finished: the answer's end marker arrived.
	Finished Stop = iota
	// Aborted: the context was done (the user's abort).
	Aborted
	// Failed: the SDK reported an error (an error answer, a dropped
	// connection).
	Failed
	// Unfinished: the stream ended without its end marker.
	Unfinished
)

// Reader reads one API's stream events into the loop's blocks.
type Reader[E any] interface {
	// Read takes one event and hands the blocks it finished to yield.
	// done means the answer ended with this event (the rest of the
	// stream is not read). A [*loop.RequestError] is a failure the
	// answer itself states (an error event); any other error is a
	// malformed stream.
	Read(ev E, yield func(loop.Block)) (done bool, err error)
	// Ended reports whether the answer's end marker arrived.
	Ended() bool
	// Stop hands out, as the API's reading of a cut answer says, the
	// blocks the Reader still holds when the stream stops, and why.
	Stop(why Stop, yield func(loop.Block))
	// Response is how the answer ended, once it did.
	Response() loop.Response
}

// Wire is how one API's errors read, alike for every call.
type Wire struct {
	// Pkg names the package in every error ("sdkmodel/chat").
	Pkg string
	// Unit is what one stream event is called in messages ("event",
	// "chunk").
	Unit string
	// Unfinished is the message of a stream that ended without its end
	// marker, with one %d for the events that arrived.
	Unfinished string
}

// Read reads a streaming answer: each event through r, each block r
// finishes handed to yield while ctx is not done (none after it is).
// classify reads an error the SDK reports; see [Wire.Failure].
func Read[E any](ctx context.Context, w Wire, s Events[E], r Reader[E], classify func(error) *loop.RequestError, yield func(loop.Block)) (loop.Response, error) {
	defer s.Close()
	cut := false
	guarded := func(b loop.Block) {
		if cut = cut || ctx.Err() != nil; !cut {
			yield(b)
		}
	}
	events := 0
	for s.Next() {
		if err := ctx.Err(); err != nil {
			r.Stop(Aborted, yield)
			return loop.Response{}, err
		}
		events++
		done, err := r.Read(s.Current(), guarded)
		if cut {
			return loop.Response{}, ctx.Err()
		}
		var re *loop.RequestError
		switch {
		case errors.As(err, &re):
			return loop.Response{}, re
		case err != nil:
			return loop.Response{}, fmt.Errorf("%s: stream %s %d: %w", w.Pkg, w.Unit, events, err)
		case done:
			return r.Response(), nil
		}
	}
	if err := ctx.Err(); err != nil {
		r.Stop(Aborted, yield)
		return loop.Response{}, err
	}
	if err := s.Err(); err != nil {
		r.Stop(Failed, yield)
		return loop.Response{}, w.Failure(classify(err), err, events)
	}
	if !r.Ended() {
		r.Stop(Unfinished, yield)
		return loop.Response{}, &loop.RequestError{Kind: loop.KindConnection, Message: fmt.Sprintf(w.Unfinished, events)}
	}
	r.Stop(Finished, yield)
	return r.Response(), nil
}

// Answered is what a non-streaming call that returned err ends with
// before its answer is read: the context's error once ctx is done, else
// err's failure ([Wire.Failure]), else nil.
func (w Wire) Answered(ctx context.Context, err error, classify func(error) *loop.RequestError) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if err != nil {
		return w.Failure(classify(err), err, -1)
	}
	return nil
}

// Hand hands blocks to yield in order while ctx is not done; the
// context's error once it is.
func Hand(ctx context.Context, blocks []loop.Block, yield func(loop.Block)) error {
	for _, b := range blocks {
		if err := ctx.Err(); err != nil {
			return err
		}
		yield(b)
	}
	return nil
}

// FromSeq makes [Events] of an iterator of events and errors: the
// first error ends the events and is their Err. Close must be called.
func FromSeq[E any](seq iter.Seq2[E, error]) Events[E] {
	next, stop := iter.Pull2(seq)
	return &seqEvents[E]{next: next, stop: stop}
}

// seqEvents are the [Events] of an iterator.
type seqEvents[E any] struct {
	next func() (E, error, bool)
	stop func()
	cur  E
	err  error
}

func (s *seqEvents[E]) Next() bool {
	if s.err != nil {
		return false
	}
	ev, err, ok := s.next()
	if !ok {
		return false
	}
	if err != nil {
		s.err = err
		return false
	}
	s.cur = ev
	return true
}

func (s *seqEvents[E]) Current() E { return s.cur }

func (s *seqEvents[E]) Err() error { return s.err }

func (s *seqEvents[E]) Close() error {
	s.stop()
	return nil
}
