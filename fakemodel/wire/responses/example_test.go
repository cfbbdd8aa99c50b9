package responses_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/responses"
)

// OpenAI's Responses API on its own: a rate limit is a 429 with the retry-after the step asks for.
// The server records the request by its shape, whatever API it spoke.
func ExampleAPI() {
	model := &fakemodel.Model{Script: []fakemodel.Step{{Kind: fakemodel.RateLimited, RetryAfterMS: 2000}}}
	srv := wire.NewServer(model, wire.Options{}, responses.API{})
	defer srv.Close()

	resp, err := http.Post(srv.URL+"/v1/responses", "application/json", strings.NewReader(`{"model":"gpt-x","input":"hi"}`))
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
	// 429 retry-after="2"
	// {"error":{"message":"rate limit exceeded","type":"tokens","param":null,"code":"rate_limit_exceeded"}}
	// responses M:429
}
