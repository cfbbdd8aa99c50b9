package gemini

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"google.golang.org/genai"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sdkmodel/internal/adapter"
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

// wire is how this package's errors read.
var wire = adapter.Wire{Pkg: "sdkmodel/gemini", Unit: "chunk", Unfinished: "the stream ended after %d chunks without a finish reason"}

// New returns a Model that calls the API as cfg says.
func New(cfg Config) (*Model, error) {
	set, err := adapter.Setup{Pkg: wire.Pkg, APIKey: cfg.APIKey, BaseURL: cfg.BaseURL, DefaultBaseURL: DefaultBaseURL,
		HTTPClient: cfg.HTTPClient}.Resolve()
	if err != nil {
		return nil, err
	}
	hc := *set.HTTPClient // a copy: the Model wraps its transport
	hc.Transport = &statusTransport{base: hc.Transport}
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:      cfg.APIKey,
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  &hc,
		HTTPOptions: genai.HTTPOptions{BaseURL: set.BaseURL, APIVersion: cfg.APIVersion},
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
	classify := func(err error) *loop.RequestError { return Classify(err, int(status.Load())) }
	if req.NonStreaming {
		r, err := m.client.Models.GenerateContent(ctx, req.Model, contents, cfg)
		if err := wire.Answered(ctx, err, classify); err != nil {
			return loop.Response{}, err
		}
		var blocks []loop.Block
		acc := accumulator{m: m}
		acc.add(r, func(b loop.Block) { blocks = append(blocks, b) })
		acc.flush(func(b loop.Block) { blocks = append(blocks, b) })
		if err := adapter.Hand(ctx, blocks, yield); err != nil {
			return loop.Response{}, err
		}
		return acc.Response(), nil
	}
	s := adapter.FromSeq(m.client.Models.GenerateContentStream(ctx, req.Model, contents, cfg))
	return adapter.Read(ctx, wire, s, &accumulator{m: m}, classify, yield)
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
