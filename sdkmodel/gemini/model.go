package gemini

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"google.golang.org/genai"

	"github.com/loopsim/loopsim/loop"
)

// DefaultBaseURL is the real API's address, used when [Config.BaseURL]
// is empty.
const DefaultBaseURL = "https://generativelanguage.googleapis.com/"

// InputTokensHeader is the header [Config.SendInputTokens] sets; it is
// the one loopsim's fake server (fakemodel/wire) reads.
const InputTokensHeader = "Loopsim-Input-Tokens"

// Config says where and how the Model calls the API. The Model reads no
// environment variable (not GEMINI_API_KEY, not GOOGLE_GEMINI_BASE_URL):
// a caller that wants them passes them.
type Config struct {
	// BaseURL is the API's address; empty means [DefaultBaseURL].
	BaseURL string
	// APIVersion is the path's version, "v1beta" when empty (the SDK's
	// default); "v1" is the other the fake server serves.
	APIVersion string
	// APIKey is the API key, sent as the SDK sends it (x-goog-api-key).
	// Required.
	APIKey string
	// HTTPClient sends the requests; nil means a new http.Client with no
	// timeout (cancel the context to stop a call). The Model wraps its
	// transport to see each answer's status.
	HTTPClient *http.Client
	// System is the system instruction; empty means none.
	System string
	// Tools defines tools by name. A tool the loop offers that is missing
	// here is declared by its name alone.
	Tools map[string]*genai.FunctionDeclaration
	// SendInputTokens adds the loop's own count of each request's input
	// tokens ([loop.Request].InputTokens) in the [InputTokensHeader]
	// header: loopsim's fake server then answers with the usage and
	// prompt-too-long figures the in-process fakes give for that count.
	// The real API ignores the header.
	SendInputTokens bool
}

// Model is a [loop.Model] over google.golang.org/genai. Make one with
// [New]. It is safe for concurrent use.
type Model struct {
	client *genai.Client
	cfg    Config

	mu sync.Mutex
	// calls numbers the function calls that came without an id.
	calls int
	// signatures maps a function call's id, or a thought's text, to the
	// thought signature the API sent with it, to send it back.
	signatures map[string][]byte
}

var _ loop.Model = (*Model)(nil)

// New returns a Model that calls the API as cfg says.
func New(cfg Config) (*Model, error) {
	if cfg.APIKey == "" {
		return nil, errors.New("sdkmodel/gemini: Config.APIKey is empty (the Model reads no environment; pass the key)")
	}
	base := cfg.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	hc := &http.Client{}
	if cfg.HTTPClient != nil {
		c := *cfg.HTTPClient
		hc = &c
	}
	hc.Transport = &statusTransport{base: hc.Transport}
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:      cfg.APIKey,
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  hc,
		HTTPOptions: genai.HTTPOptions{BaseURL: base, APIVersion: cfg.APIVersion},
	})
	if err != nil {
		return nil, fmt.Errorf("sdkmodel/gemini: making the genai client: %w", err)
	}
	return &Model{client: client, cfg: cfg, signatures: map[string][]byte{}}, nil
}

// Stream implements [loop.Model]: one HTTP request, streamed
// (:streamGenerateContent?alt=sse) unless req is marked non-streaming
// (:generateContent).
func (m *Model) Stream(ctx context.Context, req loop.Request, yield func(loop.Block)) (loop.Response, error) {
	if err := ctx.Err(); err != nil {
		return loop.Response{}, err
	}
	contents, cfg, err := m.params(req)
	if err != nil {
		return loop.Response{}, err
	}
	if m.cfg.SendInputTokens {
		cfg.HTTPOptions = &genai.HTTPOptions{Headers: http.Header{InputTokensHeader: {strconv.Itoa(req.InputTokens)}}}
	}
	var status atomic.Int32
	ctx = withStatus(ctx, &status)
	if req.NonStreaming {
		return m.single(ctx, req.Model, contents, cfg, yield, &status)
	}
	return m.stream(ctx, req.Model, contents, cfg, yield, &status)
}

// stream sends one streaming request, handing each block to yield as
// it is complete.
func (m *Model) stream(ctx context.Context, model string, contents []*genai.Content, cfg *genai.GenerateContentConfig,
	yield func(loop.Block), status *atomic.Int32) (loop.Response, error) {
	acc := accumulator{m: m}
	for r, err := range m.client.Models.GenerateContentStream(ctx, model, contents, cfg) {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return loop.Response{}, ctxErr
		}
		if err != nil {
			// the parts that arrived are received: the pending run of
			// text is as finished as it will be
			acc.flush(yield)
			return loop.Response{}, failure(err, int(status.Load()), acc.chunks)
		}
		acc.add(r, yield)
	}
	if err := ctx.Err(); err != nil {
		return loop.Response{}, err
	}
	if acc.finish == "" {
		return loop.Response{}, &loop.RequestError{Kind: loop.KindConnection,
			Message: fmt.Sprintf("the stream ended after %d chunks without a finish reason", acc.chunks)}
	}
	acc.flush(yield)
	return acc.response(), nil
}

// single sends one non-streaming request.
func (m *Model) single(ctx context.Context, model string, contents []*genai.Content, cfg *genai.GenerateContentConfig,
	yield func(loop.Block), status *atomic.Int32) (loop.Response, error) {
	r, err := m.client.Models.GenerateContent(ctx, model, contents, cfg)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return loop.Response{}, ctxErr
	}
	if err != nil {
		return loop.Response{}, failure(err, int(status.Load()), -1)
	}
	acc := accumulator{m: m}
	acc.add(r, yield)
	if err := ctx.Err(); err != nil {
		return loop.Response{}, err
	}
	acc.flush(yield)
	return acc.response(), nil
}

// callID is the id of a function call: its own, or one made up in
// order ("call_1", "call_2", ...) when the API sent none.
func (m *Model) callID(id string) string {
	if id != "" {
		return id
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	return "call_" + strconv.Itoa(m.calls)
}

// remember keeps a thought signature under key.
func (m *Model) remember(key string, sig []byte) {
	if len(sig) == 0 {
		return
	}
	m.mu.Lock()
	m.signatures[key] = sig
	m.mu.Unlock()
}

// signature is the thought signature kept under key, nil when none.
func (m *Model) signature(key string) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.signatures[key]
}
