package wire

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// answerWriter notes whether anything of the answer was written, so that
// a failure of an API's code can still be answered when nothing was.
type answerWriter struct {
	http.ResponseWriter
	wrote bool
}

// WriteHeader implements http.ResponseWriter.
func (w *answerWriter) WriteHeader(code int) {
	w.wrote = true
	w.ResponseWriter.WriteHeader(code)
}

// Write implements http.ResponseWriter.
func (w *answerWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the connection's own writer
// (flushes, deadlines).
func (w *answerWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// recoverAPI turns a panic of the code serving a request (an API's
// Decode, Reply, Stream or Error, or the model) into a harness fault:
// the request's record (seq, or a new one when it had none yet) says
// "fault" with the panic, and the client gets a plain 500 when nothing
// was written yet, else a dropped connection. Without it net/http would
// drop the connection, and the record would read as a fault the scenario
// played, or be missing. A dropped connection the core plays
// (http.ErrAbortHandler) passes through.
func (h *Handler) recoverAPI(w *answerWriter, api API, seq *int) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v)
	}
	msg := fmt.Sprintf("loopsim harness fault: the %s API's code panicked: %v", api.Name(), v)
	h.mu.Lock()
	if *seq == 0 {
		h.records = append(h.records, Record{Seq: len(h.records) + 1, API: api.Name(), Appended: []string{}, Arrival: time.Since(h.start)})
		*seq = len(h.records)
	}
	rec := &h.records[*seq-1]
	rec.Answer, rec.Error = "fault", msg
	if !w.wrote {
		rec.Status = http.StatusInternalServerError
	}
	h.mu.Unlock()
	if w.wrote {
		panic(http.ErrAbortHandler)
	}
	// not the API's error body: its Error may be what failed
	body, _ := json.Marshal(map[string]any{"error": map[string]string{"type": "loopsim_harness_fault", "message": msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = w.Write(body)
}
