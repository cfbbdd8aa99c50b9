package sdkmodel_test

import (
	"context"
	"fmt"
	"os"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sdkmodel"
)

// The loop against the real API: opt in with a key. (This example is
// compiled, never run: it has no Output comment.)
func Example() {
	model, err := sdkmodel.New(sdkmodel.Config{APIKey: os.Getenv("ANTHROPIC_API_KEY")})
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := loop.Config{
		Policy:  loop.ClaudeCode(),
		Model:   model,
		Primary: loop.ModelInfo{Name: "claude-haiku-4-5", ContextWindow: 200_000, MaxOutputTokens: 32_000},
	}
	res, err := loop.Run(context.Background(), cfg, []loop.Message{loop.UserText("Say hello in five words.")})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Terminal)
}
