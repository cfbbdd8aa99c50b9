package responses

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sdkmodel/internal/adapter"
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

// wire is how this package's errors read.
var wire = adapter.Wire{Pkg: "sdkmodel/responses", Unit: "event", Unfinished: "stream closed before response.completed, after %d events"}

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
	var opts []option.RequestOption
	if m.cfg.SendInputTokens {
		opts = append(opts, option.WithHeader(InputTokensHeader, strconv.Itoa(req.InputTokens)))
	}
	if req.NonStreaming {
		return m.single(ctx, params, yield, opts)
	}
	s := m.client.Responses.NewStreaming(ctx, params, opts...)
	return adapter.Read(ctx, wire, s, &events{}, Classify, yield)
}

// single sends params as one non-streaming request.
func (m *Model) single(ctx context.Context, params responses.ResponseNewParams, yield func(loop.Block), opts []option.RequestOption) (loop.Response, error) {
	r, err := m.client.Responses.New(ctx, params, append(opts, option.WithRequestTimeout(m.timeout))...)
	if err := wire.Answered(ctx, err, Classify); err != nil {
		return loop.Response{}, err
	}
	if r.Status == responses.ResponseStatusFailed {
		return loop.Response{}, failed(r)
	}
	var out outcome
	var blocks []loop.Block
	for i, it := range r.Output {
		bs, err := out.add(it)
		if err != nil {
			return loop.Response{}, fmt.Errorf("sdkmodel/responses: output item %d: %w", i, err)
		}
		blocks = append(blocks, bs...)
	}
	if err := adapter.Hand(ctx, blocks, yield); err != nil {
		return loop.Response{}, err
	}
	return out.response(r), nil
}

// events reads a streamed response (an [adapter.Reader]): each finished
// output item's blocks, until response.completed (or incomplete), a
// response.failed or an error event ends it.
type events struct {
	out  outcome
	resp loop.Response
}

// Read implements [adapter.Reader].
func (e *events) Read(ev responses.ResponseStreamEventUnion, yield func(loop.Block)) (bool, error) {
	switch ev.Type {
	case "response.output_item.done":
		blocks, err := e.out.add(ev.Item)
		for _, b := range blocks {
			yield(b)
		}
		return false, err
	case "response.completed", "response.incomplete":
		r := ev.Response
		e.resp = e.out.response(&r)
		return true, nil
	case "response.failed":
		r := ev.Response
		return false, failed(&r)
	case "error":
		return false, &loop.RequestError{Kind: loop.KindStream, Message: errorEventMessage(ev)}
	}
	return false, nil
}

// Ended implements [adapter.Reader]: a response that ends says so in an
// event, which Read reports.
func (e *events) Ended() bool { return false }

// Stop implements [adapter.Reader]: only finished output items reach
// the loop.
func (e *events) Stop(adapter.Stop, func(loop.Block)) {}

// Response implements [adapter.Reader].
func (e *events) Response() loop.Response { return e.resp }

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
