package fakeapi_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/fakeapi"
	"github.com/loopsim/loopsim/fakemodel/wire"
)

// An agent, here a bare HTTP client speaking OpenAI's Chat Completions,
// is pointed at the server's base URL; the server plays the script's
// faults in order, whatever API each request speaks, and records every
// request by its shape.
func ExampleNewServer() {
	model := &fakemodel.Model{Script: []fakemodel.Step{
		{Kind: fakemodel.RateLimited, RetryAfterMS: 1000},
		{Text: "done"},
	}}
	srv := fakeapi.NewServer(model, wire.Options{})
	defer srv.Close()

	body := `{"model":"gpt-x","messages":[{"role":"user","content":"hi"}]}`
	for range 2 { // the agent retries the rate limit once
		resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			fmt.Println(err)
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		fmt.Println(resp.StatusCode, "retry-after:", resp.Header.Get("retry-after") != "")
	}
	for _, r := range srv.Requests() {
		fmt.Println(r.API, r.Label(), r.Messages)
	}
	// Output:
	// 429 retry-after: true
	// 200 retry-after: false
	// chat M:429 1
	// chat M:text 1
}

// ClientEnv is what a process needs to find the server on every API:
// the base-URL variables and dummy keys of each SDK.
func ExampleClientEnv() {
	for _, kv := range fakeapi.ClientEnv("http://127.0.0.1:8080") {
		if strings.Contains(kv, "BASE_URL") {
			fmt.Println(kv)
		}
	}
	// Output:
	// ANTHROPIC_BASE_URL=http://127.0.0.1:8080
	// OPENAI_BASE_URL=http://127.0.0.1:8080/v1
	// GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:8080
}
