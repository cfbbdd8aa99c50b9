package chat

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/loopsim/loopsim/loop"
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

// New returns a Model that calls the API as cfg says.
func New(cfg Config) (*Model, error) {
	if cfg.APIKey == "" {
		return nil, errors.New("sdkmodel/chat: Config.APIKey is empty (the Model reads no environment; pass the key)")
	}
	if cfg.NonStreamingTimeout < 0 {
		return nil, fmt.Errorf("sdkmodel/chat: Config.NonStreamingTimeout %s is negative", cfg.NonStreamingTimeout)
	}
	base := cfg.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	httpClient := cfg.HTTPClient
	if httpClient == nil {
		httpClient = &http.Client{}
	}
	timeout := cfg.NonStreamingTimeout
	if timeout == 0 {
		timeout = DefaultNonStreamingTimeout
	}
	opts := []option.RequestOption{
		option.WithBaseURL(base),
		option.WithAPIKey(cfg.APIKey),
		option.WithHTTPClient(httpClient),
	}
	opts = append(opts, cfg.Options...)
	opts = append(opts, option.WithMaxRetries(0))
	return &Model{client: openai.NewClient(opts...), cfg: cfg, timeout: timeout}, nil
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
	if req.NonStreaming {
		return m.single(ctx, params, yield, opts, &resp)
	}
	return m.stream(ctx, params, yield, opts, &resp)
}

// stream sends params as a streaming request, handing each block to
// yield once the next begins or the answer ends.
// resp points at the HTTP answer once it arrived.
func (m *Model) stream(ctx context.Context, params openai.ChatCompletionNewParams, yield func(loop.Block), opts []option.RequestOption, resp **http.Response) (loop.Response, error) {
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	s := m.client.Chat.Completions.NewStreaming(ctx, params, opts...)
	defer s.Close()
	acc := newAccumulator()
	aborted := func() (loop.Response, error) {
		// the user's abort: what arrived is received, a tool call in
		// progress too (the loop answers it as one the abort cut)
		acc.flush(yield)
		return loop.Response{}, ctx.Err()
	}
	for s.Next() {
		if ctx.Err() != nil {
			return aborted()
		}
		if err := acc.add(s.Current(), yield); err != nil {
			return loop.Response{}, fmt.Errorf("sdkmodel/chat: stream chunk %d: %w", acc.chunks, err)
		}
	}
	if ctx.Err() != nil {
		return aborted()
	}
	if err := s.Err(); err != nil {
		// what arrived before the failure is received, but a tool call
		// cut inside its arguments
		acc.flushWhole(yield)
		return loop.Response{}, failure(err, acc.chunks, *resp)
	}
	if acc.finish == "" {
		acc.flushWhole(yield)
		return loop.Response{}, &loop.RequestError{Kind: loop.KindConnection,
			Message: fmt.Sprintf("the stream ended after %d chunks without a finish_reason", acc.chunks)}
	}
	acc.flush(yield)
	return acc.response(), nil
}

// single sends params as one non-streaming request.
// resp points at the HTTP answer once it arrived.
func (m *Model) single(ctx context.Context, params openai.ChatCompletionNewParams, yield func(loop.Block), opts []option.RequestOption, resp **http.Response) (loop.Response, error) {
	c, err := m.client.Chat.Completions.New(ctx, params, append(opts, option.WithRequestTimeout(m.timeout))...)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return loop.Response{}, ctxErr
	}
	if err != nil {
		return loop.Response{}, failure(err, -1, *resp)
	}
	if len(c.Choices) == 0 {
		return loop.Response{}, errors.New("sdkmodel/chat: a chat.completion without choices")
	}
	ch := c.Choices[0]
	for _, b := range messageBlocks(ch.Message) {
		if err := ctx.Err(); err != nil {
			return loop.Response{}, err
		}
		yield(b)
	}
	return loop.Response{StopReason: stopReason(ch.FinishReason), Usage: usageOf(c.Usage)}, nil
}
