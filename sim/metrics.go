package sim

// Metric is one per-episode figure the simulator measures.
type Metric int

// The metrics, in the order tables show them.
const (
	// Turns is the final turn count.
	Turns Metric = iota
	// Iterations counts passes of the loop body.
	Iterations
	// Requests counts requests sent, main and compaction, retries
	// included.
	Requests
	// Tokens is input plus output tokens of the successful requests:
	// the episode's size.
	Tokens
	// InputTokens is the input of the successful requests, cached or not.
	InputTokens
	// OutputTokens is the output of the successful requests.
	OutputTokens
	// CacheReadTokens is the part of InputTokens read from the prompt
	// cache.
	CacheReadTokens
	// CacheWriteTokens is the part of InputTokens written to the cache.
	CacheWriteTokens
	// WastedTokens is the input of failed requests plus the output of
	// replies the loop dropped.
	WastedTokens
	// PeakContext is the largest request sent, in tokens.
	PeakContext
	// AutoCompactions counts successful auto-compactions.
	AutoCompactions
	// ReactiveCompactions counts successful reactive compactions.
	ReactiveCompactions
	// CompactionFailures counts compactions that failed.
	CompactionFailures
	// Collapses counts context-collapse commits (spans folded), drains
	// included.
	Collapses
	// Snips counts snips.
	Snips
	// Microcompactions counts microcompact passes that cleared results.
	Microcompactions
	// Recoveries counts max_output_tokens_recovery transitions.
	Recoveries
	// StreamCutsKept counts stream_error_recovery transitions: streams
	// an error event cut after content whose finished blocks the loop
	// kept before streaming again.
	StreamCutsKept
	// Escalations counts max_output_tokens_escalate transitions.
	Escalations
	// StopHookBlocks counts stop_hook_blocking transitions.
	StopHookBlocks
	// Retries counts requests the retry layer sent again.
	Retries
	// Fallbacks counts switches to the fallback model.
	Fallbacks
	// RetryTimeMS is the simulated back-off, in milliseconds.
	RetryTimeMS
	// CostMicroUSD is the episode's cost at the simulation's prices, in
	// millionths of a dollar.
	CostMicroUSD

	numMetrics
)

// metricInfo names a metric and says how to show it.
type metricInfo struct {
	name string // snake_case, for CSV and JSON
	desc string // for a person
	unit string // "tokens", "ms", "usd" or ""
}

var metricInfos = [numMetrics]metricInfo{
	Turns:               {"turns", "turns", ""},
	Iterations:          {"iterations", "iterations", ""},
	Requests:            {"requests", "requests", ""},
	Tokens:              {"tokens", "tokens (input + output)", "tokens"},
	InputTokens:         {"input_tokens", "input tokens", "tokens"},
	OutputTokens:        {"output_tokens", "output tokens", "tokens"},
	CacheReadTokens:     {"cache_read_tokens", "cache-read tokens", "tokens"},
	CacheWriteTokens:    {"cache_write_tokens", "cache-write tokens", "tokens"},
	WastedTokens:        {"wasted_tokens", "tokens on failed or dropped requests", "tokens"},
	PeakContext:         {"peak_context", "peak context", "tokens"},
	AutoCompactions:     {"auto_compactions", "auto-compactions", ""},
	ReactiveCompactions: {"reactive_compactions", "reactive compactions", ""},
	CompactionFailures:  {"compaction_failures", "failed compactions", ""},
	Collapses:           {"collapses", "collapse commits", ""},
	Snips:               {"snips", "snips", ""},
	Microcompactions:    {"microcompactions", "microcompactions", ""},
	Recoveries:          {"recoveries", "output recoveries", ""},
	StreamCutsKept:      {"stream_cuts_kept", "stream cuts recovered", ""},
	Escalations:         {"escalations", "output escalations", ""},
	StopHookBlocks:      {"stop_hook_blocks", "stop-hook blocks", ""},
	Retries:             {"retries", "API retries", ""},
	Fallbacks:           {"fallbacks", "model fallbacks", ""},
	RetryTimeMS:         {"retry_time_ms", "simulated retry time", "ms"},
	CostMicroUSD:        {"cost_usd", "cost", "usd"},
}

// Metrics lists every metric in table order.
func Metrics() []Metric {
	out := make([]Metric, numMetrics)
	for i := range out {
		out[i] = Metric(i)
	}
	return out
}

// Name is the metric's snake_case name (CSV columns, JSON keys).
func (m Metric) Name() string { return metricInfos[m].name }

// String describes the metric for a person.
func (m Metric) String() string { return metricInfos[m].desc }

// Unit is "tokens", "ms", "usd" or "" (a count).
func (m Metric) Unit() string { return metricInfos[m].unit }
