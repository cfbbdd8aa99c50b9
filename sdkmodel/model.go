package sdkmodel

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sdkmodel/internal/adapter"
)

// DefaultBaseURL is the real API's address, used when [Config.BaseURL] is
// empty.
const DefaultBaseURL = "https://api.anthropic.com"

// DefaultNonStreamingTimeout bounds one non-streaming request when
// [Config.NonStreamingTimeout] is zero. The SDK refuses a non-streaming
// request with a large max_tokens unless a timeout is set; the loop's
// non-streaming retry asks for up to 64,000 tokens.
const DefaultNonStreamingTimeout = 10 * time.Minute

// InputTokensHeader is the header [Config.SendInputTokens] sets; it is
// the one the fake server (fakemodel/wire) reads.
const InputTokensHeader = "Loopsim-Input-Tokens"

// Config says where and how the Model calls the API. The Model reads no
// environment variable: a caller that wants ANTHROPIC_API_KEY passes it.
type Config struct {
	// BaseURL is the API's address (scheme, host, port, optional path
	// prefix); empty means [DefaultBaseURL].
	BaseURL string
	// APIKey is the API key, sent as the SDK sends it (an Authorization
	// bearer header in v2.15). Required.
	APIKey string
	// HTTPClient sends the requests; nil means a new http.Client with no
	// timeout (streams may last long; cancel the context to stop one).
	HTTPClient *http.Client
	// System is the system prompt; empty means none.
	System string
	// Tools defines tools by name. A tool the loop offers that is missing
	// here is sent as an object schema with no properties.
	Tools map[string]anthropic.ToolParam
	// ThinkingBudget, when positive, enables extended thinking with this
	// budget on every request whose max_tokens is larger than it.
	ThinkingBudget int
	// NonStreamingTimeout bounds one non-streaming request; zero means
	// [DefaultNonStreamingTimeout].
	NonStreamingTimeout time.Duration
	// SendInputTokens adds the loop's own count of each request's input
	// tokens ([loop.Request].InputTokens) in the [InputTokensHeader]
	// header. loopsim's fake server (fakemodel/fakeapi) then answers
	// with the usage and prompt-too-long figures the in-process fakes give
	// for that count; the real API ignores the header.
	SendInputTokens bool
	// Options are further SDK request options (headers, middleware),
	// applied after the ones above. Retries stay off whatever they say.
	Options []option.RequestOption
}

// Model is a [loop.Model] over the official SDK. Make one with [New]. The
// loop calls it from one goroutine at a time; it is safe for concurrent
// use anyway.
type Model struct {
	client  anthropic.Client
	cfg     Config
	timeout time.Duration

	mu sync.Mutex
	// signatures maps a thinking block's text to the signature the API
	// sent with it, so that the block can be sent back unmodified.
	signatures map[string]string
}

var _ loop.Model = (*Model)(nil)

// wire is how this package's errors read.
var wire = adapter.Wire{Pkg: "sdkmodel", Unit: "event", Unfinished: "the stream ended after %d events without message_stop"}

// New returns a Model that calls the API as cfg says.
func New(cfg Config) (*Model, error) {
	if cfg.ThinkingBudget < 0 {
		return nil, fmt.Errorf("sdkmodel: Config.ThinkingBudget %d is negative", cfg.ThinkingBudget)
	}
	set, err := adapter.Setup{Pkg: wire.Pkg, APIKey: cfg.APIKey, BaseURL: cfg.BaseURL, DefaultBaseURL: DefaultBaseURL,
		HTTPClient: cfg.HTTPClient, Timeout: cfg.NonStreamingTimeout, DefaultTimeout: DefaultNonStreamingTimeout}.Resolve()
	if err != nil {
		return nil, err
	}
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(set.BaseURL),
		option.WithAPIKey(cfg.APIKey),
		option.WithHTTPClient(set.HTTPClient),
	}
	opts = append(opts, cfg.Options...)
	opts = append(opts, option.WithMaxRetries(0))
	return &Model{client: anthropic.NewClient(opts...), cfg: cfg, timeout: set.Timeout, signatures: map[string]string{}}, nil
}

// Stream implements [loop.Model]: one HTTP request, streaming unless req
// is marked non-streaming.
func (m *Model) Stream(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
	params, err := m.params(req)
	if err != nil {
		return loop.Response{}, err
	}
	var opts []option.RequestOption
	if m.cfg.SendInputTokens {
		opts = append(opts, option.WithHeader(InputTokensHeader, strconv.Itoa(req.InputTokens)))
	}
	if req.NonStreaming {
		return m.single(ctx, params, yield, opts)
	}
	s := m.client.Messages.NewStreaming(ctx, params, opts...)
	return adapter.Read(ctx, wire, s, &accumulator{m: m}, Classify, yield)
}

// single sends params as one non-streaming request.
func (m *Model) single(ctx context.Context, params anthropic.MessageNewParams, yield func(loop.Block), opts []option.RequestOption) (loop.Response, error) {
	msg, err := m.client.Messages.New(ctx, params, append(opts, option.WithRequestTimeout(m.timeout))...)
	if err := wire.Answered(ctx, err, Classify); err != nil {
		return loop.Response{}, err
	}
	blocks := make([]loop.Block, 0, len(msg.Content))
	for i, c := range msg.Content {
		b, ok, err := fromContent(c)
		if err != nil {
			return loop.Response{}, fmt.Errorf("sdkmodel: content block %d: %w", i, err)
		}
		if ok {
			m.remember(b)
			blocks = append(blocks, b.block)
		}
	}
	if err := adapter.Hand(ctx, blocks, yield); err != nil {
		return loop.Response{}, err
	}
	return loop.Response{StopReason: loop.StopReason(msg.StopReason), Usage: usageOf(msg.Usage)}, nil
}

// remember keeps a thinking block's signature.
func (m *Model) remember(b received) {
	if b.block.Type != loop.BlockThinking || b.signature == "" {
		return
	}
	m.mu.Lock()
	m.signatures[b.block.Text] = b.signature
	m.mu.Unlock()
}

// signature returns the signature remembered for a thinking text.
func (m *Model) signature(text string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.signatures[text]
}

// usageOf converts the SDK's usage.
func usageOf(u anthropic.Usage) loop.Usage {
	return loop.Usage{
		InputTokens:              int(u.InputTokens),
		OutputTokens:             int(u.OutputTokens),
		CacheReadInputTokens:     int(u.CacheReadInputTokens),
		CacheCreationInputTokens: int(u.CacheCreationInputTokens),
	}
}
