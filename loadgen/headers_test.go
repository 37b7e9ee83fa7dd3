package loadgen

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestParseHeaders(t *testing.T) {
	env := map[string]string{"GW_TOKEN": "tok-123"}
	hs, err := ParseHeaders([]string{"X-Tenant=blue", "Authorization: Bearer abc", "X-Gw-Token=env:GW_TOKEN", "X-Empty="}, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	want := []Header{{"X-Tenant", "blue"}, {"Authorization", "Bearer abc"}, {"X-Gw-Token", "tok-123"}, {"X-Empty", ""}}
	if len(hs) != len(want) {
		t.Fatalf("%v", hs)
	}
	for i := range want {
		if hs[i] != want[i] {
			t.Errorf("header %d: %+v, want %+v", i, hs[i], want[i])
		}
	}
	for _, bad := range []string{"novalue", "=v", "Bad Name=v", "X-A=env:UNSET_VAR", "X-B=a\r\nX-Injected: 1", "X(y)=1"} {
		if _, err := ParseHeaders([]string{bad}, func(k string) string { return env[k] }); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseExtraBody(t *testing.T) {
	m, err := ParseExtraBody(`{"top_p": 0.9, "chat_template_kwargs": {"enable_thinking": false}}`)
	if err != nil || len(m) != 2 {
		t.Fatalf("%v %v", m, err)
	}
	for _, bad := range []string{`[1]`, `null`, `{"top_p":`, `{"model": "x"}`, `{"stream": false}`, `"s"`} {
		if _, err := ParseExtraBody(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	if m, err := ParseExtraBody("  "); err != nil || m != nil {
		t.Errorf("empty: %v %v", m, err)
	}
}

// TestExtraBodyMergesIntoEveryRequest: --extra-body's fields are in the
// body, replacing thinkcap's own of the same name, the rest kept.
func TestExtraBodyMergesIntoEveryRequest(t *testing.T) {
	extra, err := ParseExtraBody(`{"top_p": 0.9, "ignore_eos": false}`)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(ClientConfig{BaseURL: "http://127.0.0.1:1", Model: "m", IgnoreEOS: true, ExtraBody: extra})
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Body(Request{ID: "r1", Prompt: "hi", MaxTokens: 8})
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatal(err)
	}
	if body["top_p"] != 0.9 || body["ignore_eos"] != false || body["model"] != "m" || body["stream"] != true || body["max_completion_tokens"] != 8.0 {
		t.Errorf("merged body: %s", b)
	}
}

// TestWithHeadersSendsThemWithoutTouchingTheRequest: every request through
// the client carries the headers, over its own of the same name, and the
// caller's request is left as it was.
func TestWithHeadersSendsThemWithoutTouchingTheRequest(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got = r.Header.Clone() }))
	defer srv.Close()
	c := WithHeaders(srv.Client(), []Header{{"X-Tenant", "blue"}, {"Authorization", "Custom xyz"}})
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	req.Header.Set("Authorization", "Bearer key")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got.Get("X-Tenant") != "blue" || got.Get("Authorization") != "Custom xyz" {
		t.Errorf("server saw %v", got)
	}
	if req.Header.Get("X-Tenant") != "" || req.Header.Get("Authorization") != "Bearer key" {
		t.Errorf("the caller's request changed: %v", req.Header)
	}
	if c0 := srv.Client(); WithHeaders(c0, nil) != c0 {
		t.Error("no headers still wrapped the client")
	}
}
