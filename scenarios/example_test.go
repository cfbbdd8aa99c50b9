package scenarios_test

import (
	"context"
	"fmt"

	"github.com/loopsim/loopsim/scenarios"
)

// A scenario is a YAML file: the profile, the starting conversation, the
// model's script and what the run must do. Run plays it against the
// scripted fakes, checks the invariants and compares the run with the
// expectation.
func ExampleRun() {
	s, err := scenarios.Parse("api-error.yaml", []byte(`
name: api-error
description: The API answers 500 after a tool turn; the seed completes after the stop-failure hooks.
profile: seed
conversation:
  - {role: user, text: Summarise the log.}
script:
  - {text: Reading it., tool_uses: [{name: Read}]}
  - {kind: server_error}
expect:
  terminal: completed
  transitions: [next_turn]
  counters: {requests: 2}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := scenarios.Run(context.Background(), s)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Passed(), out.Got.Terminal, out.Got.Transitions, out.Got.Counters)
	// Output: true completed [next_turn] map[requests:2]
}
