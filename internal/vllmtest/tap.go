package vllmtest

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"
)

// Tap serves next on loopback and first shows see every request and, for
// a chat completion, its body (nil on the other routes); next still reads
// the whole body. see returns false when it has answered the request itself,
// as a gateway that refuses it does. The tests use it to check what a load
// test sends.
func Tap(t testing.TB, next http.Handler, see func(w http.ResponseWriter, r *http.Request, chat []byte) bool) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var chat []byte
		if r.URL.Path == "/v1/chat/completions" {
			chat, _ = io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(chat))
		}
		if see(w, r, chat) {
			next.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Gateway is Tap in front of the server at backend, through a reverse
// proxy.
func Gateway(t testing.TB, backend string, see func(w http.ResponseWriter, r *http.Request, chat []byte) bool) *httptest.Server {
	t.Helper()
	target, err := url.Parse(backend)
	if err != nil {
		t.Fatal(err)
	}
	return Tap(t, httputil.NewSingleHostReverseProxy(target), see)
}
