// Package agents holds the presets for released agents: for each, what
// it takes to run it headless against the fake model API server
// (fakemodel/fakeapi) in a fresh temporary home: the API it speaks, the
// version the preset was settled against, the binary it is found by,
// the config file it reads the server's address from, the variables and
// flags that make it run without asking (tools approved, no trust or git
// checks, no sign-in) and the model it names.
//
// A preset becomes a [scenarios.Agent] with [Preset.Agent]; `simulate
// agent --preset NAME` and `simulate matrix` use it. Each preset was
// found from the agent's public source and settled by running the
// installed binary against `simulate serve`; where the two differed the
// binary won. A new agent is one more entry in [Presets] (preset.go) and
// its golden file under testdata/.
package agents
