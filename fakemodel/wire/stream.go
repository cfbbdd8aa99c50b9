package wire

import (
	"bufio"
	"encoding/json"
	"net/http"
	"time"
)

// Stream writes server-sent events for an API's [API.Stream]. After the
// first failure (the client went away) it writes nothing more; Err says
// why. With a slow stream ([Options.EventDelay]) it waits before every
// event after the first.
type Stream struct {
	w     http.ResponseWriter
	r     *http.Request
	bw    *bufio.Writer
	delay time.Duration
	n     int
	err   error
}

// NewStream returns a stream writing to w for r, waiting delay before
// each event after the first. The caller has sent the headers.
func NewStream(w http.ResponseWriter, r *http.Request, delay time.Duration) *Stream {
	return &Stream{w: w, r: r, bw: bufio.NewWriter(w), delay: delay}
}

// Event writes one event: "event: NAME" (left out when name is empty,
// as the OpenAI and Gemini streams send only data lines) and "data: "
// with v as JSON.
func (s *Stream) Event(name string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		if s.err == nil {
			s.err = err
		}
		return
	}
	s.write(name, data)
}

// Data writes one data-only event whose payload is raw as it is (the
// Chat Completions stream's closing "[DONE]").
func (s *Stream) Data(raw string) { s.write("", []byte(raw)) }

func (s *Stream) write(name string, data []byte) {
	if s.err != nil {
		return
	}
	if s.n > 0 && s.delay > 0 {
		s.Flush()
		if !pause(s.r, s.delay) {
			s.err = s.r.Context().Err()
			return
		}
	}
	s.n++
	if name != "" {
		_, _ = s.bw.WriteString("event: ")
		_, _ = s.bw.WriteString(name)
		_, _ = s.bw.WriteString("\n")
	}
	_, _ = s.bw.WriteString("data: ")
	_, _ = s.bw.Write(data)
	if _, err := s.bw.WriteString("\n\n"); err != nil {
		s.err = err
	}
}

// Flush sends what is buffered to the client.
func (s *Stream) Flush() {
	if s.err != nil {
		return
	}
	if err := s.bw.Flush(); err != nil {
		s.err = err
		return
	}
	if err := http.NewResponseController(s.w).Flush(); err != nil {
		s.err = err
	}
}

// Err is the first write failure, nil while the client is there.
func (s *Stream) Err() error { return s.err }

// pause waits d; false when the client went away meanwhile.
func pause(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return r.Context().Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-r.Context().Done():
		return false
	case <-t.C:
		return true
	}
}
