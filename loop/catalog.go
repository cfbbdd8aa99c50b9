package loop

import (
	"fmt"
	"strings"
)

// KnownModel is a model of the [Catalog]: its limits and how the released
// agent treats it.
type KnownModel struct {
	ModelInfo
	// ReactiveOnly says the released agent enforces no auto-compact
	// threshold and no blocking limit for the model: only the API's
	// prompt-too-long triggers compaction (docs/profile-claude-code.md §3). The claude-code
	// profile lists these models in its reactive_only_models.
	ReactiveOnly bool `json:"reactive_only,omitempty"`
}

// Catalog is the models whose figures docs/profile-claude-code.md §9 gives, by name:
// context window, output maximum (what the released agent asks for on
// every main request), and reactive-only mode. Look one up with
// [LookupModel].
//
//   - claude-opus-5-5: the released agent's default model (what it
//     sends with no model chosen, observed/testdata): a 1,000,000-token
//     window (it auto-compacts at 967,000 = 1,000,000 - 20,000 - 13,000)
//     and 128,000 tokens of output (the max_tokens of its every main
//     request); not reactive-only.
//   - claude-sonnet-5-5: a 1,000,000-token window; docs/profile-claude-code.md gives
//     128,000 tokens of output for "the default 1M-window model" and
//     names this one as a 1M model that is not reactive-only.
//   - claude-sonnet-4-5: 200,000 and 32,000; reactive-only.
//   - claude-haiku-4-5: 200,000 and 32,000; reactive-only (observed:
//     nothing enforced up to 1,500,000 tokens).
//   - claude-3-5-haiku: 200,000 and 8,192.
var Catalog = []KnownModel{
	{ModelInfo: ModelInfo{Name: "claude-opus-5-5", ContextWindow: 1_000_000, MaxOutputTokens: 128_000}},
	{ModelInfo: ModelInfo{Name: "claude-sonnet-5-5", ContextWindow: 1_000_000, MaxOutputTokens: 128_000}},
	{ModelInfo: ModelInfo{Name: "claude-sonnet-4-5", ContextWindow: 200_000, MaxOutputTokens: 32_000}, ReactiveOnly: true},
	{ModelInfo: ModelInfo{Name: "claude-haiku-4-5", ContextWindow: 200_000, MaxOutputTokens: 32_000}, ReactiveOnly: true},
	{ModelInfo: ModelInfo{Name: "claude-3-5-haiku", ContextWindow: 200_000, MaxOutputTokens: 8_192}},
}

// LookupModel finds a model of the [Catalog] by name.
func LookupModel(name string) (KnownModel, error) {
	for _, m := range Catalog {
		if m.Name == name {
			return m, nil
		}
	}
	return KnownModel{}, fmt.Errorf("unknown model %q (known: %s)", name, strings.Join(CatalogNames(), ", "))
}

// CatalogNames lists the names of the [Catalog], in its order.
func CatalogNames() []string {
	out := make([]string, len(Catalog))
	for i, m := range Catalog {
		out[i] = m.Name
	}
	return out
}

// reactiveOnlyCatalog lists the reactive-only models of the [Catalog].
func reactiveOnlyCatalog() []string {
	var out []string
	for _, m := range Catalog {
		if m.ReactiveOnly {
			out = append(out, m.Name)
		}
	}
	return out
}
