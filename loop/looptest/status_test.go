package looptest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/loopsim/loopsim/loop"
)

// CheckModel holds a RequestError's status to its kind: the kinds whose
// status the API fixes to loop.ErrorKind.Status, a server error to 5xx,
// any status to 100..599, and leaves the rest free.
func TestCheckModelStatuses(t *testing.T) {
	for _, c := range []struct {
		kind   loop.ErrorKind
		status int
		want   string // the violation, "" for none
	}{
		{loop.KindOther, 0, ""},
		{loop.KindOther, 100, ""},
		{loop.KindOther, 599, ""},
		{loop.KindOther, 99, "has status 99"},
		{loop.KindOther, 600, "has status 600"},
		{loop.KindServer, 500, ""},
		{loop.KindServer, 599, ""},
		{loop.KindServer, 0, "has status 0, want 5xx"},
		{loop.KindServer, 499, "has status 499, want 5xx"},
		{loop.KindServer, 600, "has status 600, want 5xx"},
		{loop.KindRateLimited, 429, ""},
		{loop.KindRateLimited, 503, "has status 503, want 429"},
		{loop.KindRequestTooLarge, 400, "want 413"},
		{loop.KindInvalidRequest, 422, "want 400"},
		{loop.KindMediaTooLarge, 413, ""},
		{loop.KindFallbackTriggered, 500, ""},
		{loop.KindConnection, 0, ""},
	} {
		err := CheckModel(func() loop.Model {
			return &model{mutate: func(_ *model, ctx context.Context, _ loop.Request, _ func(loop.Block)) (loop.Response, error, bool) {
				return loop.Response{}, &loop.RequestError{Kind: c.kind, Status: c.status, Message: "x"}, ctx.Err() == nil
			}}
		})
		if c.want == "" {
			assert.NoError(t, err, "%s %d", c.kind, c.status)
		} else {
			assert.ErrorContains(t, err, c.want, "%s %d", c.kind, c.status)
		}
	}
}

// A RequestError must say what failed.
func TestCheckModelWantsAMessage(t *testing.T) {
	err := CheckModel(func() loop.Model {
		return &model{mutate: func(_ *model, ctx context.Context, _ loop.Request, _ func(loop.Block)) (loop.Response, error, bool) {
			return loop.Response{}, &loop.RequestError{Kind: loop.KindRateLimited, Status: 429}, ctx.Err() == nil
		}}
	})
	assert.ErrorContains(t, err, "RequestError rate_limited has no message")
}
