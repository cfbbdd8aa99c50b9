// Package observed holds what released agents did when they were run
// headless against the fake server (fakemodel/fakeapi), fault script by
// fault script, and checks each agent's profile against it: the Claude
// Code agent (the npm package @anthropic-ai/claude-code, the version in
// [AgentVersion]) over the Messages API, checked against the claude-code
// profile, and Codex CLI (@openai/codex, run through its preset in
// package agents) over the Responses API, checked against the codex
// profile. A case names its agent ([Case.Agent]); each agent other than
// Claude Code has its cases and observations in a folder of its own
// (testdata/cases/codex, testdata/observed/codex).
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
// depends on its environment (Claude Code with IS_SANDBOX set keeps
// retrying after the third 529 in a row). For Codex the observation also
// keeps, per request, the time since the one before, rounded (its
// back-off), and the result counts its retry notices.
//
// The observations are re-recorded only on request, against an installed
// agent (see [AgentEnv]); the tests that run in CI read the recorded ones.
package observed
