package responses

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/loopsim/loopsim/loop"
)

// DefaultBaseURL is the real API's address, used when [Config.BaseURL]
// is empty.
const DefaultBaseURL = "https://api.openai.com/v1"

// DefaultNonStreamingTimeout bounds one non-streaming request when
// [Config.NonStreamingTimeout] is zero.
const DefaultNonStreamingTimeout = 10 * time.Minute

// InputTokensHeader is the header [Config.SendInputTokens] sets; the
// fake server (package fakemodel/wire) reads it.
const InputTokensHeader = "Loopsim-Input-Tokens"

// Config says where and how the Model calls the API. The Model reads no
// environment variable: a caller that wants OPENAI_API_KEY passes it.
type Config struct {
	// BaseURL is the API's address including its /v1 prefix
	// ("http://127.0.0.1:PORT/v1" for the fake server); empty means
	// [DefaultBaseURL].
	BaseURL string
	// APIKey is the API key, sent as a bearer token. Required.
	APIKey string
	// HTTPClient sends the requests; nil means a new http.Client with no
	// timeout (cancel the context to stop a stream).
	HTTPClient *http.Client
	// Instructions are the system instructions; empty means none.
	Instructions string
	// Tools defines tools by name. A tool the loop offers that is missing
	// here is sent as a function with an object schema of no properties.
	Tools map[string]responses.FunctionToolParam
	// NonStreamingTimeout bounds one non-streaming request; zero means
	// [DefaultNonStreamingTimeout].
	NonStreamingTimeout time.Duration
	// SendInputTokens adds the loop's count of each request's input tokens
	// in [InputTokensHeader], so the fake server answers with the figures
	// the in-process fakes give for that count; the real API ignores it.
	SendInputTokens bool
	// Options are further SDK request options, applied after the ones
	// above. Retries stay off whatever they say.
	Options []option.RequestOption
}

// Model is a [loop.Model] over the SDK's Responses client. Make one with
// [New]; it is safe for concurrent use.
type Model struct {
	client  openai.Client
	cfg     Config
	timeout time.Duration
}

var _ loop.Model = (*Model)(nil)

// New returns a Model that calls the API as cfg says.
func New(cfg Config) (*Model, error) {
	if cfg.APIKey == "" {
		return nil, errors.New("sdkmodel/responses: Config.APIKey is empty (the Model reads no environment; pass the key)")
	}
	if cfg.NonStreamingTimeout < 0 {
		return nil, fmt.Errorf("sdkmodel/responses: Config.NonStreamingTimeout %s is negative", cfg.NonStreamingTimeout)
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
	var opts []option.RequestOption
	if m.cfg.SendInputTokens {
		opts = append(opts, option.WithHeader(InputTokensHeader, strconv.Itoa(req.InputTokens)))
	}
	if req.NonStreaming {
		return m.single(ctx, params, yield, opts)
	}
	return m.stream(ctx, params, yield, opts)
}

// single sends params as one non-streaming request.
func (m *Model) single(ctx context.Context, params responses.ResponseNewParams, yield func(loop.Block), opts []option.RequestOption) (loop.Response, error) {
	r, err := m.client.Responses.New(ctx, params, append(opts, option.WithRequestTimeout(m.timeout))...)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return loop.Response{}, ctxErr
	}
	if err != nil {
		return loop.Response{}, failure(err, -1)
	}
	if r.Status == responses.ResponseStatusFailed {
		return loop.Response{}, failed(r)
	}
	var out outcome
	for i, it := range r.Output {
		blocks, err := out.add(it)
		if err != nil {
			return loop.Response{}, fmt.Errorf("sdkmodel/responses: output item %d: %w", i, err)
		}
		for _, b := range blocks {
			if err := ctx.Err(); err != nil {
				return loop.Response{}, err
			}
			yield(b)
		}
	}
	return out.response(r), nil
}

// stream sends params as a streaming request, handing each finished
// output item's blocks to yield.
func (m *Model) stream(ctx context.Context, params responses.ResponseNewParams, yield func(loop.Block), opts []option.RequestOption) (loop.Response, error) {
	s := m.client.Responses.NewStreaming(ctx, params, opts...)
	defer s.Close()
	var out outcome
	events := 0
	for s.Next() {
		events++
		ev := s.Current()
		switch ev.Type {
		case "response.output_item.done":
			blocks, err := out.add(ev.Item)
			if err != nil {
				return loop.Response{}, fmt.Errorf("sdkmodel/responses: stream event %d: %w", events, err)
			}
			for _, b := range blocks {
				if err := ctx.Err(); err != nil {
					return loop.Response{}, err
				}
				yield(b)
			}
		case "response.completed", "response.incomplete":
			r := ev.Response
			return out.response(&r), nil
		case "response.failed":
			r := ev.Response
			return loop.Response{}, failed(&r)
		case "error":
			return loop.Response{}, &loop.RequestError{Kind: loop.KindStream, Message: errorEventMessage(ev)}
		}
	}
	if err := ctx.Err(); err != nil {
		return loop.Response{}, err
	}
	if err := s.Err(); err != nil {
		return loop.Response{}, failure(err, events)
	}
	return loop.Response{}, &loop.RequestError{Kind: loop.KindConnection,
		Message: fmt.Sprintf("stream closed before response.completed, after %d events", events)}
}

// errorEventMessage is an error event's message, with its code.
func errorEventMessage(ev responses.ResponseStreamEventUnion) string {
	msg := ev.Message
	if msg == "" {
		msg = "error event"
	}
	if ev.Code != "" {
		msg = ev.Code + ": " + msg
	}
	return msg
}
