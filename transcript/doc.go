// Package transcript reads agents' session logs into normalized sessions:
// the sequence of a session's API calls (context, output, tool calls,
// usage, model), its compactions and its user prompts, as the simulator
// measures and replays them.
//
// Two formats are read: Claude Code's session logs (the JSON Lines under
// ~/.claude/projects/, one content block per line) and Codex CLI's
// rollouts (~/.codex/sessions/, event_msg token_count lines). A file's
// format is told from its lines. Lines that are not JSON (malformed) or
// that neither format knows (foreign) are counted and reported, never
// fatal: the rest of the file is read.
//
// User lines that the agent injected rather than the user typed (task
// notifications, hook output, slash-command echoes and their output,
// interruption notes, meta lines) are told apart from real prompts and
// counted by kind.
//
// The package depends on the standard library only.
package transcript
