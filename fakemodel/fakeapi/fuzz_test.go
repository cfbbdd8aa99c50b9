package fakeapi_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/fakeapi"
	"github.com/loopsim/loopsim/fakemodel/wire"
)

// FuzzEveryAPI: no body sent to any API's model-call path makes the
// server panic or answer 5xx; a body it takes is answered 200.
//
//	go test ./fakemodel/fakeapi -run XXX -fuzz FuzzEveryAPI
func FuzzEveryAPI(f *testing.F) {
	apis := fakeapi.APIs()
	for i, api := range apis {
		s := samples[api.Name()]
		f.Add(uint8(i), true, []byte(s.body))
		f.Add(uint8(i), false, []byte(s.plainBody))
		for _, h := range hostileBodies {
			f.Add(uint8(i), false, []byte(h.body))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, streamed bool, body []byte) {
		api := apis[int(which)%len(apis)]
		s, ok := samples[api.Name()]
		if !ok {
			t.Fatalf("no sample for the %s API", api.Name())
		}
		path := s.path
		if !streamed && s.plainPath != "" {
			path = s.plainPath
		}
		h := wire.NewHandler(&fakemodel.Model{Script: []fakemodel.Step{{Text: "ok", Repeat: fakemodel.Forever}}}, wire.Options{}, api)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body)))
		if w.Code >= 500 {
			t.Fatalf("%s: status %d for %q: %s", api.Name(), w.Code, body, w.Body.Bytes())
		}
		recs := h.Requests()
		if len(recs) != 1 {
			t.Fatalf("%s: %d records for one request", api.Name(), len(recs))
		}
		if recs[0].Answer != "rejected" && w.Code != http.StatusOK {
			t.Fatalf("%s: %s answered %d", api.Name(), recs[0].Label(), w.Code)
		}
	})
}
