package wire_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/messages"
)

// The core serves the APIs it is given (here the Messages API alone)
// from a model's answers, and records each request by its shape, never
// its text: the second request keeps the first's message, appends the
// reply and the user's next message, and its answer is the scripted
// truncation.
func ExampleNewServer() {
	model := &fakemodel.Model{Script: []fakemodel.Step{{Text: "Looking."}, {Kind: fakemodel.Truncated, Text: "part"}}}
	srv := wire.NewServer(model, wire.Options{}, messages.API{})
	defer srv.Close()
	for _, body := range []string{
		`{"model":"claude-opus-4-5","max_tokens":1024,"messages":[{"role":"user","content":"fix it"}]}`,
		`{"model":"claude-opus-4-5","max_tokens":1024,"messages":[{"role":"user","content":"fix it"},{"role":"assistant","content":"Looking."},{"role":"user","content":"go on"}]}`,
	} {
		resp, err := http.Post(srv.URL+"/v1/messages", "application/json", strings.NewReader(body))
		if err != nil {
			fmt.Println(err)
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	for _, r := range srv.Requests() {
		fmt.Printf("%d %s: roles %s, kept %d, appended %v, answer %s\n", r.Seq, r.API, r.Roles, r.Kept, r.Appended, r.Answer)
	}

	// Output:
	// 1 messages: roles u, kept 0, appended [user:text], answer text
	// 2 messages: roles uau, kept 1, appended [assistant:text user:text], answer trunc
}
