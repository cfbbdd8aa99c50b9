package gemini_test

import (
	"context"
	"fmt"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/fakeapi"
	"github.com/loopsim/loopsim/fakemodel/wire"
	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sdkmodel/gemini"
)

// The loop over the genai SDK against the fake server: a 503 the loop's
// retry layer retries, then a reply. Against the real API, leave
// BaseURL empty and pass a key (GEMINI_API_KEY).
func Example() {
	srv := fakeapi.NewServer(&fakemodel.Model{Script: []fakemodel.Step{
		{Kind: fakemodel.Overloaded},
		{Text: "Hello from the fake Gemini."},
	}}, wire.Options{})
	defer srv.Close()
	model, err := gemini.New(gemini.Config{BaseURL: srv.URL, APIKey: "loopsim-dummy-gemini-key"})
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := loop.Config{
		Policy:  loop.ClaudeCode(),
		Model:   model,
		Primary: loop.ModelInfo{Name: "gemini-2.5-flash", ContextWindow: 1_048_576, MaxOutputTokens: 65_536},
	}
	res, err := loop.Run(context.Background(), cfg, []loop.Message{loop.UserText("Say hello.")})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Terminal, wire.Labels(srv.Requests()))
	// Output: completed [M:503 M:text]
}
