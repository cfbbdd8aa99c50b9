package wire

import (
	"encoding/json"
	"net/http"
	"time"
)

// answer writes a, the model's answer to d, as api writes it.
func (h *Handler) answer(w http.ResponseWriter, r *http.Request, api API, d *Decoded, a *Answer) {
	id := RequestID(a.Seq)
	switch a.Outcome {
	case OutcomeGone:
		return
	case OutcomeFault:
		h.writeError(w, api, &Failure{Status: http.StatusInternalServerError, Message: "loopsim harness fault: " + a.Fault.Error(), RequestID: id})
		return
	}
	if !d.Stream {
		if !pause(r, h.opts.EventDelay) {
			h.markGone(a.Seq)
			return
		}
		switch a.Outcome {
		case OutcomeReply:
			h.writeJSON(w, api, http.StatusOK, api.Reply(d, a), id)
		case OutcomeError:
			h.writeError(w, api, &Failure{Err: a.Err, RequestID: id})
		case OutcomeDrop:
			panic(http.ErrAbortHandler)
		case OutcomeAbort:
			h.abortResponse(r)
		}
		return
	}
	if a.Outcome == OutcomeError && !StreamsFirst(a.Err, a.Blocks, true) && !StreamsError(api, a.Err) {
		h.writeError(w, api, &Failure{Err: a.Err, RequestID: id})
		return
	}
	if a.Outcome == OutcomeDrop && len(a.Blocks) == 0 && a.Cut == nil {
		panic(http.ErrAbortHandler)
	}
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-cache")
	setID(hdr, api, id)
	w.WriteHeader(http.StatusOK)
	s := NewStream(w, r, h.opts.EventDelay)
	api.Stream(s, d, a)
	switch a.Outcome {
	case OutcomeDrop:
		s.Flush()
		panic(http.ErrAbortHandler)
	case OutcomeAbort:
		s.Flush()
		if s.Err() == nil {
			h.abortResponse(r)
		}
	}
	s.Flush()
	if s.Err() != nil {
		h.markGone(a.Seq)
	}
}

// abortResponse plays the user's abort: it tells the test (OnAbort), waits
// for the client to go away, then drops the connection.
func (h *Handler) abortResponse(r *http.Request) {
	if h.opts.OnAbort != nil {
		h.opts.OnAbort()
	}
	t := time.NewTimer(h.opts.AbortWait)
	defer t.Stop()
	select {
	case <-r.Context().Done():
	case <-t.C:
	}
	panic(http.ErrAbortHandler)
}

// IDHeader is implemented by an API whose answers name the request in a
// header ("request-id" for the Messages API): the core sets that header
// to the request's id ([RequestID]) on every answer to a recorded
// request, replies, streams and errors alike.
type IDHeader interface {
	// IDHeader is the header's name.
	IDHeader() string
}

// setID sets api's request-id header, if it has one, to id (when not
// empty).
func setID(hdr http.Header, api API, id string) {
	if ih, ok := api.(IDHeader); ok && id != "" {
		hdr.Set(ih.IDHeader(), id)
	}
}

// writeError writes api's error answer for f.
func (h *Handler) writeError(w http.ResponseWriter, api API, f *Failure) {
	h.writeAnswer(w, api, api.Error(f), f.RequestID)
}

// writeAnswer writes an error answer: its headers, then its body as JSON.
func (h *Handler) writeAnswer(w http.ResponseWriter, api API, ans ErrorAnswer, id string) {
	for k, vs := range ans.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	h.writeJSON(w, api, ans.Status, ans.Body, id)
}

// writeJSON writes v as a JSON body with status and api's request-id
// header. A body that cannot be encoded (a bug) is answered with the
// API's 500.
func (h *Handler) writeJSON(w http.ResponseWriter, api API, status int, v any, id string) {
	data, err := json.Marshal(v)
	if err != nil {
		ans := api.Error(&Failure{Status: http.StatusInternalServerError, Message: "loopsim: encoding the answer: " + err.Error(), RequestID: id})
		status = ans.Status
		if data, err = json.Marshal(ans.Body); err != nil {
			data = []byte(`{"error":"loopsim: encoding the answer"}`)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	setID(w.Header(), api, id)
	if status == 0 {
		status = http.StatusInternalServerError
	}
	w.WriteHeader(status)
	_, _ = w.Write(data)
}
