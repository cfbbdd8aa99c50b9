package otelexport

import (
	"testing"

	"github.com/stretchr/testify/assert"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// The pinned names are those of the semconv package of the same version.
func TestPinnedNamesMatchSemconvPackage(t *testing.T) {
	pairs := map[string]string{
		AttrOperationName:         string(semconv.GenAIOperationNameKey),
		AttrProviderName:          string(semconv.GenAIProviderNameKey),
		AttrAgentName:             string(semconv.GenAIAgentNameKey),
		AttrConversationID:        string(semconv.GenAIConversationIDKey),
		AttrRequestModel:          string(semconv.GenAIRequestModelKey),
		AttrRequestMaxTokens:      string(semconv.GenAIRequestMaxTokensKey),
		AttrUsageInputTokens:      string(semconv.GenAIUsageInputTokensKey),
		AttrUsageOutputTokens:     string(semconv.GenAIUsageOutputTokensKey),
		AttrUsageCacheRead:        string(semconv.GenAIUsageCacheReadInputTokensKey),
		AttrUsageCacheCreation:    string(semconv.GenAIUsageCacheCreationInputTokensKey),
		AttrResponseFinishReasons: string(semconv.GenAIResponseFinishReasonsKey),
		AttrToolName:              string(semconv.GenAIToolNameKey),
		AttrToolCallID:            string(semconv.GenAIToolCallIDKey),
		AttrErrorType:             string(semconv.ErrorTypeKey),
		OpInvokeAgent:             semconv.GenAIOperationNameInvokeAgent.Value.AsString(),
		OpChat:                    semconv.GenAIOperationNameChat.Value.AsString(),
		OpExecuteTool:             semconv.GenAIOperationNameExecuteTool.Value.AsString(),
		AttrRequestStream:         string(semconv.GenAIRequestStreamKey),
		AttrHTTPStatus:            string(semconv.HTTPResponseStatusCodeKey),
		AttrExitCode:              string(semconv.ProcessExitCodeKey),
		ProviderAnthropic:         semconv.GenAIProviderNameAnthropic.Value.AsString(),
		ProviderOpenAI:            semconv.GenAIProviderNameOpenAI.Value.AsString(),
		ProviderGemini:            semconv.GenAIProviderNameGCPGemini.Value.AsString(),
	}
	for ours, theirs := range pairs {
		assert.Equal(t, theirs, ours)
	}
	assert.Equal(t, semconv.SchemaURL, SchemaURL)
}
