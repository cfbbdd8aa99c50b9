package wire_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/messages"
)

// brokenAPI is the Messages API with a bug: one of its methods panics.
type brokenAPI struct {
	messages.API
	in string
}

func (b brokenAPI) Decode(rt wire.Route, body []byte, opts wire.DecodeOptions) (*wire.Decoded, error) {
	if b.in == "decode" {
		panic("decode bug")
	}
	return b.API.Decode(rt, body, opts)
}

func (b brokenAPI) Reply(d *wire.Decoded, a *wire.Answer) any {
	if b.in == "reply" {
		panic("reply bug")
	}
	return b.API.Reply(d, a)
}

func (b brokenAPI) Stream(s *wire.Stream, d *wire.Decoded, a *wire.Answer) {
	b.API.Stream(s, d, a)
	if b.in == "stream" {
		s.Flush()
		panic("stream bug")
	}
}

// A bug in an API's code is a harness fault: recorded as one, answered
// with a 500 when nothing was written yet, else a dropped stream (not a
// connection net/http drops, which would read as a scripted drop).
func TestAPIPanicsAreHarnessFaults(t *testing.T) {
	for _, c := range []struct {
		in       string
		stream   bool
		status   int // 0: the stream is cut
		recorded int
	}{
		{"decode", false, 500, 500},
		{"reply", false, 500, 500},
		{"stream", true, 0, 200},
	} {
		t.Run(c.in, func(t *testing.T) {
			defer goleak.VerifyNone(t)
			srv := wire.NewServer(&fakemodel.Model{Script: []fakemodel.Step{{Text: "ok", Repeat: 2}}}, wire.Options{},
				brokenAPI{in: c.in}, messages.API{})
			defer srv.Close()
			hc := &http.Client{Transport: &http.Transport{}}
			defer hc.CloseIdleConnections()
			resp, err := hc.Post(srv.URL+"/v1/messages", "application/json", strings.NewReader(mustJSON(t, request(c.stream, userText("go")))))
			require.NoError(t, err)
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if c.status == 0 {
				assert.Equal(t, 200, resp.StatusCode)
				assert.Error(t, err, "the stream is cut")
			} else {
				require.NoError(t, err)
				assert.Equal(t, c.status, resp.StatusCode)
				assert.Contains(t, string(body), c.in+" bug")
			}
			rec := srv.Requests()
			require.Len(t, rec, 1)
			assert.Equal(t, "fault", rec[0].Answer)
			assert.Equal(t, c.recorded, rec[0].Status)
			assert.Contains(t, rec[0].Error, "the messages API's code panicked: "+c.in+" bug")
		})
	}
}
