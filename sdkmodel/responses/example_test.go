package responses_test

import (
	"context"
	"fmt"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/fakeapi"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sdkmodel/responses"
)

// The loop over openai-go against the fake server's Responses API: an
// overload the loop's retry layer retries, then a reply; the server's
// records in the profile's notation.
func Example() {
	srv := fakeapi.NewServer(&fakemodel.Model{Script: []fakemodel.Step{
		{Kind: fakemodel.Overloaded},
		{Text: "hello"},
	}}, wire.Options{})
	defer srv.Close()
	model, err := responses.New(responses.Config{BaseURL: srv.URL + "/v1", APIKey: "loopsim-dummy-openai-key"})
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := loop.Config{
		Policy:  loop.ClaudeCode(),
		Model:   model,
		Primary: loop.ModelInfo{Name: "gpt-test", ContextWindow: 200_000, MaxOutputTokens: 32_000},
	}
	res, err := loop.Run(context.Background(), cfg, []loop.Message{loop.UserText("Say hello.")})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Terminal, wire.Labels(srv.Requests()))
	// Output: completed [M:503 M:text]
}
