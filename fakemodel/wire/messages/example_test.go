package messages_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/messages"
)

// Anthropic's Messages API on its own: a prompt too long is the API's 400 with its invalid_request_error body.
// The server records the request by its shape, whatever API it spoke.
func ExampleAPI() {
	model := &fakemodel.Model{Script: []fakemodel.Step{{Kind: fakemodel.PromptTooLong, InputTokens: 210_000, Maximum: 200_000}}}
	srv := wire.NewServer(model, wire.Options{}, messages.API{})
	defer srv.Close()

	resp, err := http.Post(srv.URL+"/v1/messages", "application/json", strings.NewReader(`{"model":"claude-opus-4-5","max_tokens":1024,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Printf("%d retry-after=%q\n", resp.StatusCode, resp.Header.Get("retry-after"))
	fmt.Println(strings.TrimSpace(string(b)))
	for _, r := range srv.Requests() {
		fmt.Println(r.API, r.Label())
	}

	// Output:
	// 400 retry-after=""
	// {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens \u003e 200000 maximum"},"request_id":"req_loopsim_000001"}
	// messages M:400
}
