package otelexport

// The names this package emits. The gen_ai.* and error.type names are
// those of the OpenTelemetry semantic conventions at SemconvVersion (the
// GenAI conventions are in development: names may change in later
// versions, so every name emitted is pinned here and nowhere else). A
// test checks each against go.opentelemetry.io/otel/semconv/v1.41.0, the
// last semconv package of the Go SDK to carry the GenAI names (v1.42.0
// dropped them when the GenAI conventions moved repository). The
// loopsim.* names are this project's own.
const (
	// SemconvVersion is the semantic-conventions version the names follow.
	SemconvVersion = "1.41.0"
	// SchemaURL is the schema URL of SemconvVersion, set on the tracer.
	SchemaURL = "https://opentelemetry.io/schemas/1.41.0"

	AttrOperationName         = "gen_ai.operation.name"
	AttrProviderName          = "gen_ai.provider.name"
	AttrAgentName             = "gen_ai.agent.name"
	AttrConversationID        = "gen_ai.conversation.id"
	AttrRequestModel          = "gen_ai.request.model"
	AttrRequestMaxTokens      = "gen_ai.request.max_tokens"
	AttrUsageInputTokens      = "gen_ai.usage.input_tokens"
	AttrUsageOutputTokens     = "gen_ai.usage.output_tokens"
	AttrUsageCacheRead        = "gen_ai.usage.cache_read.input_tokens"
	AttrUsageCacheCreation    = "gen_ai.usage.cache_creation.input_tokens"
	AttrResponseFinishReasons = "gen_ai.response.finish_reasons"
	AttrToolName              = "gen_ai.tool.name"
	AttrToolCallID            = "gen_ai.tool.call.id"
	AttrErrorType             = "error.type"
	AttrRequestStream         = "gen_ai.request.stream"
	AttrHTTPStatus            = "http.response.status_code"
	AttrExitCode              = "process.exit.code"

	// ProviderAnthropic, ProviderOpenAI and ProviderGemini are the
	// gen_ai.provider.name values of the fake server's APIs: messages;
	// chat and responses; gemini.
	ProviderAnthropic = "anthropic"
	ProviderOpenAI    = "openai"
	ProviderGemini    = "gcp.gemini"

	// OpInvokeAgent, OpChat and OpExecuteTool are the gen_ai.operation.name
	// values of the run, a model request and a tool call.
	OpInvokeAgent = "invoke_agent"
	OpChat        = "chat"
	OpExecuteTool = "execute_tool"

	// ErrorTypeTool is error.type on a tool call whose result is an error.
	ErrorTypeTool = "tool_error"
	// ErrorTypeRejected is error.type on a request to the fake server
	// that broke its API's rules (the agent's fault, not an injected one).
	ErrorTypeRejected = "rejected"
	// ErrorTypeHarness is error.type on a request the fake server could
	// not answer for a fault of its own (its script ran out).
	ErrorTypeHarness = "harness_fault"
	// ErrorTypeClientGone is error.type on a request whose client went
	// away before the model answered.
	ErrorTypeClientGone = "client_gone"
	// ErrorTypeRun is error.type on an agent run that exited 0 but could
	// not be judged (AgentRun.Error).
	ErrorTypeRun = "run_error"
)

// loopsim's own attribute and event names.
const (
	AttrIteration       = "loopsim.iteration"
	AttrPurpose         = "loopsim.request.purpose"
	AttrAttempt         = "loopsim.request.attempt"
	AttrMessages        = "loopsim.request.messages"
	AttrEstimatedInput  = "loopsim.request.input_tokens"
	AttrNonStreaming    = "loopsim.request.non_streaming"
	AttrBlocks          = "loopsim.response.blocks"
	AttrToolSynthetic   = "loopsim.tool.synthetic"
	AttrToolTokens      = "loopsim.tool.result_tokens"
	AttrTerminal        = "loopsim.terminal"
	AttrHalted          = "loopsim.halted"
	AttrTurns           = "loopsim.turns"
	AttrIterations      = "loopsim.iterations"
	AttrFaultKind       = "loopsim.fault.kind"
	AttrFaultStatus     = "loopsim.fault.status"
	AttrMessage         = "loopsim.message"
	AttrTransition      = "loopsim.transition"
	AttrChanges         = "loopsim.transition.changes"
	AttrDropped         = "loopsim.dropped"
	AttrHookOutcome     = "loopsim.stop_hook.outcome"
	AttrHookActive      = "loopsim.stop_hook.active"
	AttrHookBlocksInRow = "loopsim.stop_hook.blocks_in_row"
	AttrTrigger         = "loopsim.compaction.trigger"
	AttrOK              = "loopsim.ok"
	AttrTokensBefore    = "loopsim.tokens_before"
	AttrTokensAfter     = "loopsim.tokens_after"
	AttrSkipped         = "loopsim.compaction.skipped"
	AttrStage           = "loopsim.stage"
	AttrRetryReason     = "loopsim.retry.reason"
	AttrDelayMS         = "loopsim.retry.delay_ms"
	AttrFrom            = "loopsim.fallback.from"
	AttrTo              = "loopsim.fallback.to"
	AttrTurn            = "loopsim.turn"
	AttrHistory         = "loopsim.history.messages"
	AttrWithheldKind    = "loopsim.withheld.kind"

	// The names of an agent run's spans (AgentRun): its outcome and
	// number of requests, each request's API, number, messages kept and
	// dropped from the request before, the server's answer (the
	// profile's notation: text, tool, trunc, 529, drop, ...) and a client
	// that went away before its answer was written in full.
	AttrOutcome         = "loopsim.agent.outcome"
	AttrRequests        = "loopsim.agent.requests"
	AttrWireAPI         = "loopsim.wire.api"
	AttrSeq             = "loopsim.request.seq"
	AttrKept            = "loopsim.request.kept"
	AttrDroppedMessages = "loopsim.request.dropped"
	AttrAnswer          = "loopsim.wire.answer"
	AttrClientGone      = "loopsim.wire.client_gone"

	// EventFault is an injected fault: a failed request, a tool error, a
	// stop hook that failed, a stage or compaction that failed.
	EventFault       = "loopsim.fault"
	EventIteration   = "loopsim.iteration"
	EventStage       = "loopsim.stage"
	EventCompaction  = "loopsim.compaction"
	EventRetry       = "loopsim.retry"
	EventFallback    = "loopsim.fallback"
	EventWithheld    = "loopsim.withheld"
	EventErrorShown  = "loopsim.error_emitted"
	EventNotice      = "loopsim.notice"
	EventToolSummary = "loopsim.tool_use_summary"
	EventStopHook    = "loopsim.stop_hook"
	EventStopFailure = "loopsim.stop_failure_hook"
	EventTransition  = "loopsim.transition"
)
