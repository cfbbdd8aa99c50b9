package messages_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/messages"
	"github.com/loopsim/loopsim/loop"
)

// StatusOf answers every kind as its documentation's table says.
func TestStatusOfEveryKind(t *testing.T) {
	cases := []struct {
		err  loop.RequestError
		want wire.Status
	}{
		{loop.RequestError{Kind: loop.KindPromptTooLong}, wire.Status{HTTP: 400, Type: "invalid_request_error"}},
		{loop.RequestError{Kind: loop.KindRequestTooLarge}, wire.Status{HTTP: 413, Type: "request_too_large"}},
		{loop.RequestError{Kind: loop.KindMediaTooLarge}, wire.Status{HTTP: 400, Type: "invalid_request_error"}},
		{loop.RequestError{Kind: loop.KindImageSize}, wire.Status{HTTP: 400, Type: "invalid_request_error"}},
		{loop.RequestError{Kind: loop.KindFallbackTriggered, Status: 500}, wire.Status{HTTP: 529, Type: "overloaded_error"}},
		{loop.RequestError{Kind: loop.KindOverloaded}, wire.Status{HTTP: 529, Type: "overloaded_error"}},
		{loop.RequestError{Kind: loop.KindRateLimited}, wire.Status{HTTP: 429, Type: "rate_limit_error"}},
		{loop.RequestError{Kind: loop.KindServer}, wire.Status{HTTP: 500, Type: "api_error"}},
		{loop.RequestError{Kind: loop.KindServer, Status: 503}, wire.Status{HTTP: 503, Type: "api_error"}},
		{loop.RequestError{Kind: loop.KindServer, Status: 599}, wire.Status{HTTP: 599, Type: "api_error"}},
		{loop.RequestError{Kind: loop.KindServer, Status: 499}, wire.Status{HTTP: 500, Type: "api_error"}},
		{loop.RequestError{Kind: loop.KindServer, Status: 600}, wire.Status{HTTP: 500, Type: "api_error"}},
		{loop.RequestError{Kind: loop.KindConnection}, wire.Status{HTTP: 500, Type: "api_error"}},
		{loop.RequestError{Kind: loop.KindInvalidRequest}, wire.Status{HTTP: 400, Type: "invalid_request_error"}},
		{loop.RequestError{Kind: loop.KindStream}, wire.Status{HTTP: 500, Type: "api_error"}},
		{loop.RequestError{Kind: loop.KindOther, Status: 400}, wire.Status{HTTP: 400, Type: "invalid_request_error"}},
		{loop.RequestError{Kind: loop.KindOther, Status: 401}, wire.Status{HTTP: 401, Type: "authentication_error"}},
		{loop.RequestError{Kind: loop.KindOther, Status: 403}, wire.Status{HTTP: 403, Type: "permission_error"}},
		{loop.RequestError{Kind: loop.KindOther, Status: 404}, wire.Status{HTTP: 404, Type: "not_found_error"}},
		{loop.RequestError{Kind: loop.KindOther, Status: 413}, wire.Status{HTTP: 413, Type: "request_too_large"}},
		{loop.RequestError{Kind: loop.KindOther, Status: 429}, wire.Status{HTTP: 429, Type: "rate_limit_error"}},
		{loop.RequestError{Kind: loop.KindOther, Status: 529}, wire.Status{HTTP: 529, Type: "overloaded_error"}},
		{loop.RequestError{Kind: loop.KindOther, Status: 599}, wire.Status{HTTP: 599, Type: "api_error"}},
		{loop.RequestError{Kind: loop.KindOther, Status: 399}, wire.Status{HTTP: 500, Type: "api_error"}},
		{loop.RequestError{Kind: loop.KindOther, Status: 600}, wire.Status{HTTP: 500, Type: "api_error"}},
		{loop.RequestError{Kind: loop.KindOther}, wire.Status{HTTP: 500, Type: "api_error"}},
		{loop.RequestError{Kind: loop.KindException}, wire.Status{HTTP: 500, Type: "api_error"}},
		{loop.RequestError{Kind: loop.KindAborted}, wire.Status{HTTP: 500, Type: "api_error"}},
	}
	covered := map[loop.ErrorKind]bool{}
	for _, c := range cases {
		assert.Equal(t, c.want, messages.API{}.StatusOf(&c.err), "%s %d", c.err.Kind, c.err.Status)
		covered[c.err.Kind] = true
	}
	for _, k := range loop.ErrorKinds {
		assert.True(t, covered[k], "kind %s has no case", k)
	}
}
