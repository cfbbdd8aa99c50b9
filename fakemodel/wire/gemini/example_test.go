package gemini_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/gemini"
)

// Gemini's generateContent on its own: a rate limit is the API's 429 RESOURCE_EXHAUSTED, its retry delay in a RetryInfo detail.
// The server records the request by its shape, whatever API it spoke.
func ExampleAPI() {
	model := &fakemodel.Model{Script: []fakemodel.Step{{Kind: fakemodel.RateLimited, RetryAfterMS: 2000}}}
	srv := wire.NewServer(model, wire.Options{}, gemini.API{})
	defer srv.Close()

	resp, err := http.Post(srv.URL+"/v1beta/models/gemini-2.5-pro:generateContent", "application/json", strings.NewReader(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`))
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
	// 429 retry-after=""
	// {"error":{"code":429,"message":"rate limit exceeded","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2s"}]}}
	// gemini M:429
}
