package chat_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/fakemodel/wire/chat"
)

// OpenAI Chat Completions on its own: an overload is the 503 server_overloaded OpenAI answers with.
// The server records the request by its shape, whatever API it spoke.
func ExampleAPI() {
	model := &fakemodel.Model{Script: []fakemodel.Step{{Kind: fakemodel.Overloaded}}}
	srv := wire.NewServer(model, wire.Options{}, chat.API{})
	defer srv.Close()

	resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"gpt-x","messages":[{"role":"user","content":"hi"}]}`))
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
	// 503 retry-after=""
	// {"error":{"message":"overloaded","type":"server_error","param":null,"code":"server_overloaded"}}
	// chat M:503
}
