package agents

// presets are the released agents loopsim has a preset for. Each entry
// says what the installed binary needed to run headless against the fake
// server; docs/agents.md tells what was tried.
var presets = []Preset{
	{
		Name: "claude-code", Package: "@anthropic-ai/claude-code", Version: "2.1.332",
		Binary: "claude", API: "messages", Model: "claude-sonnet-4-5",
		// stream-json prints a final {"type":"result"} line; the settings
		// allow every tool, as --dangerously-skip-permissions would (it is
		// refused to root without IS_SANDBOX, which changes the retry
		// policy).
		Args: []string{"-p", PromptVar, "--output-format", "stream-json", "--verbose", "--model", "claude-sonnet-4-5", "--permission-mode", "acceptEdits"},
		Env:  []string{"CLAUDE_CONFIG_DIR={home}/.claude", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1"},
		Files: []File{{Path: ".claude/settings.json", Content: `{"permissions":{"allow":["Bash","Read","Edit","Write","Glob","Grep","LS","WebFetch"]}}
`}},
	},
	{
		Name: "codex", Package: "@openai/codex", Version: "0.169.0",
		Binary: "codex", API: "responses", Model: "gpt-5-codex",
		// exec is the headless mode; --json prints one event a line, the
		// last turn.completed or turn.failed.
		Args: []string{"exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "--json", PromptVar},
		Env:  []string{"CODEX_HOME={home}/.codex"},
		Files: []File{{Path: ".codex/config.toml", Content: `model = "gpt-5-codex"
model_provider = "loopsim"

[model_providers.loopsim]
name = "loopsim"
base_url = "{v1}"
wire_api = "responses"
env_key = "OPENAI_API_KEY"
`}},
	},
	{
		Name: "gemini-cli", Package: "@google/gemini-cli", Version: "0.61.0",
		Binary: "gemini", API: "gemini", Model: "gemini-2.5-pro",
		// Headless, the gateway sign-in GOOGLE_GEMINI_BASE_URL selects is
		// refused: the settings name the API-key sign-in.
		Args: []string{"-p", PromptVar, "--yolo", "--skip-trust", "--output-format", "stream-json", "-m", "gemini-2.5-pro"},
		Files: []File{{Path: ".gemini/settings.json", Content: `{"security":{"auth":{"selectedType":"gemini-api-key"}},"privacy":{"usageStatisticsEnabled":false},"general":{"disableAutoUpdate":true}}
`}},
	},
	{
		Name: "qwen-code", Package: "@qwen-code/qwen-code", Version: "0.24.4",
		Binary: "qwen", API: "chat", Model: "qwen3-coder-plus",
		// The settings name the OpenAI sign-in; the base URL and key come
		// from OPENAI_BASE_URL and OPENAI_API_KEY.
		Args: []string{"--yolo", "--output-format", "stream-json", "-m", "qwen3-coder-plus", PromptVar},
		Env:  []string{"OPENAI_MODEL=qwen3-coder-plus"},
		Files: []File{{Path: ".qwen/settings.json", Content: `{"security":{"auth":{"selectedType":"openai"}},"privacy":{"usageStatisticsEnabled":false}}
`}},
	},
	{
		Name: "opencode", Package: "opencode-ai", Version: "1.18.33",
		Binary: "opencode", API: "chat", Model: "loopsim/gpt-test",
		// An OpenAI-compatible provider of its own in the global config;
		// --auto approves what is not denied.
		Args: []string{"run", "--format", "json", "--auto", "-m", "loopsim/gpt-test", PromptVar},
		Env:  []string{"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1"},
		Files: []File{{Path: ".config/opencode/opencode.json", Content: `{
  "$schema": "https://opencode.ai/config.json",
  "autoupdate": false,
  "share": "disabled",
  "permission": {"edit": "allow", "bash": "allow", "webfetch": "allow"},
  "provider": {
    "loopsim": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "loopsim",
      "options": {"baseURL": "{v1}", "apiKey": "loopsim-dummy-openai-key"},
      "models": {"gpt-test": {"name": "gpt-test"}}
    }
  }
}
`}},
	},
}
