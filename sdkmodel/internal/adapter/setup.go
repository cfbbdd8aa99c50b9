package adapter

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Setup is what every SDK model's Config says alike, with the defaults
// its package gives.
type Setup struct {
	// Pkg names the package in every error ("sdkmodel/chat").
	Pkg string
	// APIKey is the key; required.
	APIKey string
	// BaseURL is the API's address; empty means DefaultBaseURL.
	BaseURL, DefaultBaseURL string
	// HTTPClient sends the requests; nil means a new http.Client.
	HTTPClient *http.Client
	// Timeout bounds one non-streaming request; zero means
	// DefaultTimeout, negative is refused.
	Timeout, DefaultTimeout time.Duration
}

// Settings are a Setup with its defaults filled in.
type Settings struct {
	BaseURL    string
	HTTPClient *http.Client
	Timeout    time.Duration
}

// Resolve checks s and fills in its defaults.
func (s Setup) Resolve() (Settings, error) {
	if s.APIKey == "" {
		return Settings{}, errors.New(s.Pkg + ": Config.APIKey is empty (the Model reads no environment; pass the key)")
	}
	if s.Timeout < 0 {
		return Settings{}, fmt.Errorf("%s: Config.NonStreamingTimeout %s is negative", s.Pkg, s.Timeout)
	}
	out := Settings{BaseURL: s.BaseURL, HTTPClient: s.HTTPClient, Timeout: s.Timeout}
	if out.BaseURL == "" {
		out.BaseURL = s.DefaultBaseURL
	}
	if out.HTTPClient == nil {
		out.HTTPClient = &http.Client{}
	}
	if out.Timeout == 0 {
		out.Timeout = s.DefaultTimeout
	}
	return out, nil
}
