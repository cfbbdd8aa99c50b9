package chat_test

import (
	"context"
	"fmt"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/fakeapi"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sdkmodel/chat"
)

// The loop over openai-go's chat client, against loopsim's fake server:
// an overload (503 server_overloaded, which the loop's retry layer
// retries), then a reply. Point BaseURL at https://api.openai.com/v1 (or
// leave it empty) with a real key for the real API.
func Example() {
	srv := fakeapi.NewServer(&fakemodel.Model{Script: []fakemodel.Step{
		{Kind: fakemodel.Overloaded},
		{Text: "Hello from the fake server."},
	}}, wire.Options{})
	defer srv.Close()
	model, err := chat.New(chat.Config{BaseURL: srv.URL + "/v1", APIKey: "loopsim-dummy-openai-key"})
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := loop.Config{
		Policy:  loop.ClaudeCode(),
		Model:   model,
		Primary: loop.ModelInfo{Name: "gpt-test", ContextWindow: 128_000, MaxOutputTokens: 16_384},
	}
	res, err := loop.Run(context.Background(), cfg, []loop.Message{loop.UserText("Say hello.")})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Terminal)
	fmt.Println(wire.Labels(srv.Requests()))
	// Output:
	// completed
	// [M:503 M:text]
}
