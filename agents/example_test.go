package agents_test

import (
	"fmt"

	"github.com/loopsim/loopsim/agents"
)

// Each released agent's preset says how it runs headless against the
// fake server: the API it speaks there and the binary looked up on
// PATH. Preset.Agent makes the scenarios.Agent that simulate agent
// --preset and the matrix run.
func ExampleLookup() {
	for _, name := range []string{"claude-code", "codex", "gemini-cli"} {
		p, err := agents.Lookup(name)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s: %s over %s\n", p.Name, p.Binary, p.API)
	}
	_, err := agents.Lookup("cursor")
	fmt.Println(err != nil)

	// Output:
	// claude-code: claude over messages
	// codex: codex over responses
	// gemini-cli: gemini over gemini
	// true
}

// A matrix cell's request sequence, as its table writes it: a run of
// one label once, with its count.
func ExampleSequence() {
	fmt.Println(agents.Sequence([]string{"M:529", "M:529", "M:529", "M:text"}))

	// Output: M:529 ×3 M:text
}
