package chat

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sdkmodel/internal/adapter"
)

// DefaultBaseURL is the real API's address, used when [Config.BaseURL] is
// empty.
const DefaultBaseURL = "https://api.openai.com/v1"

// DefaultNonStreamingTimeout bounds one non-streaming request when
// [Config.NonStreamingTimeout] is zero.
const DefaultNonStreamingTimeout = 10 * time.Minute

// InputTokensHeader is the header [Config.SendInputTokens] sets; it is
// the one loopsim's fake server reads (wire.InputTokensHeader).
const InputTokensHeader = "Loopsim-Input-Tokens"

// Config says where and how the Model calls the API. The Model reads no
// environment variable: a caller that wants OPENAI_API_KEY passes it.
type Config struct {
	// BaseURL is the API's address, /v1 included
	// ("http://127.0.0.1:PORT/v1" for loopsim's server); empty means
	// [DefaultBaseURL].
	BaseURL string
	// APIKey is the API key. Required.
	APIKey string
	// HTTPClient sends the requests; nil means a new http.Client with no
	// timeout (streams may last long; cancel the context to stop one).
	HTTPClient *http.Client
	// System is the system prompt, sent as the first message (role
	// system); empty means none.
	System string
	// Tools defines tools by name. A tool the loop offers that is missing
	// here is sent as a function whose parameters are an object with no
	// properties.
	Tools map[string]openai.FunctionDefinitionParam
	// NonStreamingTimeout bounds one non-streaming request; zero means
	// [DefaultNonStreamingTimeout].
	NonStreamingTimeout time.Duration
	// SendInputTokens adds the loop's own count of each request's input
	// tokens ([loop.Request].InputTokens) in the [InputTokensHeader]
	// header. loopsim's fake server then answers with the usage and
	// prompt-too-long figures the in-process fakes give for that count;
	// the real API ignores the header.
	SendInputTokens bool
	// Options are further SDK request options (headers, middleware),
	// applied after the ones above. Retries stay off whatever they say.
	Options []option.RequestOption
}

// Model is a [loop.Model] over openai-go's Chat Completions client. Make
// one with [New]. It keeps no state between calls and is safe for
// concurrent use.
type Model struct {
	client  openai.Client
	cfg     Config
	timeout time.Duration
}

var _ loop.Model = (*Model)(nil)

// wire is how this package's errors read.
var wire = adapter.Wire{Pkg: "sdkmodel/chat", Unit: "chunk", Unfinished: "the stream ended after %d chunks without a finish_reason"}

// New returns a Model that calls the API as cfg says.
func New(cfg Config) (*Model, error) {
	set, err := adapter.Setup{Pkg: wire.Pkg, APIKey: cfg.APIKey, BaseURL: cfg.BaseURL, DefaultBaseURL: DefaultBaseURL,
		HTTPClient: cfg.HTTPClient, Timeout: cfg.NonStreamingTimeout, DefaultTimeout: DefaultNonStreamingTimeout}.Resolve()
	if err != nil {
		return nil, err
	}
	opts := []option.RequestOption{
		option.WithBaseURL(set.BaseURL),
		option.WithAPIKey(cfg.APIKey),
		option.WithHTTPClient(set.HTTPClient),
	}
	opts = append(opts, cfg.Options...)
	opts = append(opts, option.WithMaxRetries(0))
	return &Model{client: openai.NewClient(opts...), cfg: cfg, timeout: set.Timeout}, nil
}

// Stream implements [loop.Model]: one HTTP request, streaming unless req
// is marked non-streaming.
func (m *Model) Stream(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
	params, err := m.params(req)
	if err != nil {
		return loop.Response{}, err
	}
	var resp *http.Response
	opts := []option.RequestOption{option.WithResponseInto(&resp)}
	if m.cfg.SendInputTokens {
		opts = append(opts, option.WithHeader(InputTokensHeader, strconv.Itoa(req.InputTokens)))
	}
	classify := func(err error) *loop.RequestError { return classifyAnswer(err, resp) }
	if req.NonStreaming {
		return m.single(ctx, params, yield, opts, classify)
	}
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	s := m.client.Chat.Completions.NewStreaming(ctx, params, opts...)
	return adapter.Read(ctx, wire, s, newAccumulator(), classify, yield)
}

// single sends params as one non-streaming request.
func (m *Model) single(ctx context.Context, params openai.ChatCompletionNewParams, yield func(loop.Block), opts []option.RequestOption,
	classify func(error) *loop.RequestError) (loop.Response, error) {
	c, err := m.client.Chat.Completions.New(ctx, params, append(opts, option.WithRequestTimeout(m.timeout))...)
	if err := wire.Answered(ctx, err, classify); err != nil {
		return loop.Response{}, err
	}
	if len(c.Choices) == 0 {
		return loop.Response{}, errors.New("sdkmodel/chat: a chat.completion without choices")
	}
	ch := c.Choices[0]
	if err := adapter.Hand(ctx, messageBlocks(ch.Message), yield); err != nil {
		return loop.Response{}, err
	}
	return loop.Response{StopReason: stopReason(ch.FinishReason), Usage: usageOf(c.Usage)}, nil
}
