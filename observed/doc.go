// Package observed holds what the released Claude Code agent (the npm
// package @anthropic-ai/claude-code, the version in [AgentVersion]) did
// when it was run headless against the fake Messages API server
// (fakemodel/fakeapi), fault script by fault script, and checks the
// claude-code profile against it.
//
// Each case under testdata/cases is a scenario file (what the server
// answers, and what the loop in process must do) and a case file (how the
// agent is run: its arguments, environment and settings, and the open
// point of the profile it settles). Each observation under
// testdata/observed is normalized: per request its purpose, model,
// max_tokens, streaming, message count and roles, tool count, each
// message's size in bytes (recorded from the request-too-large cases on), the
// server's answer and, per message, which earlier request carried the
// same message verbatim (or the new message's shape); and the agent's
// final result (subtype, terminal reason, turns, whether its text was
// empty) and exit status. Never the agent's files, prompts or request
// bodies: message contents are hashed in memory to tell "the same" from
// "new", and only the answer is kept.
//
// The agent runs in a clean environment (PATH, a temporary HOME and
// config directory, the server's address, a dummy key): its policy
// depends on its environment (with IS_SANDBOX set it keeps retrying after
// the third 529 in a row).
//
// The observations are re-recorded only on request, against an installed
// agent (see [AgentEnv]); the tests that run in CI read the recorded ones.
package observed
