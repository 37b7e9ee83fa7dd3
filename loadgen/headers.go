package loadgen

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Header is an extra HTTP header sent with every request of a load test
// (--header): to the gateway's auth, a tenant id, a routing hint.
type Header struct{ Name, Value string }

// ParseHeaders reads --header items, KEY=VALUE (vllm bench serve's form)
// or "Key: value" (curl's). A value env:NAME is NAME's value in the
// environment (getenv), so that a secret need never be on the command
// line; an unset variable is an error.
func ParseHeaders(items []string, getenv func(string) string) ([]Header, error) {
	var hs []Header
	var errs []error
	for _, item := range items {
		i := strings.IndexAny(item, "=:")
		if i <= 0 {
			errs = append(errs, fmt.Errorf("--header %q: want KEY=VALUE or \"Key: value\"", item))
			continue
		}
		name, value := strings.TrimSpace(item[:i]), strings.TrimSpace(item[i+1:])
		if !validHeaderName(name) {
			errs = append(errs, fmt.Errorf("--header %q: %q is not a header name", item, name))
			continue
		}
		if env, ok := strings.CutPrefix(value, "env:"); ok {
			if value = getenv(env); value == "" {
				errs = append(errs, fmt.Errorf("--header %s=env:%s: the environment variable %s is not set", name, env, env))
				continue
			}
		}
		if strings.ContainsAny(value, "\r\n") {
			errs = append(errs, fmt.Errorf("--header %s: a value cannot hold a line break", name))
			continue
		}
		hs = append(hs, Header{Name: name, Value: value})
	}
	return hs, errors.Join(errs...)
}

// validHeaderName reports whether s is an HTTP token (RFC 9110 §5.1).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c > 0x7e || c <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, c) {
			return false
		}
	}
	return true
}

// HeaderValues are the headers' values: secrets to keep out of every file
// and message.
func HeaderValues(hs []Header) []string {
	var vs []string
	for _, h := range hs {
		vs = append(vs, h.Value)
	}
	return vs
}

// WithHeaders is c sending hs with every request (over the request's own
// headers: a --header Authorization replaces the API key's). The returned
// client shares c's transport, so its connections are c's.
func WithHeaders(c *http.Client, hs []Header) *http.Client {
	if len(hs) == 0 {
		return c
	}
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	cc := *c
	cc.Transport = &headerTransport{base: base, headers: hs}
	return &cc
}

type headerTransport struct {
	base    http.RoundTripper
	headers []Header
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context()) // a RoundTripper must not change the caller's request
	for _, h := range t.headers {
		r.Header.Set(h.Name, h.Value)
	}
	return t.base.RoundTrip(r)
}

// bodyKeysOwned are the request fields a load test cannot let --extra-body
// replace: what is sent and how it streams back.
var bodyKeysOwned = []string{"model", "messages", "prompt", "stream", "stream_options"}

// ParseExtraBody reads --extra-body: a JSON object whose fields are added
// to every request body (sampling parameters, chat_template_kwargs, vendor
// fields), replacing thinkcap's own where they share a name.
func ParseExtraBody(s string) (map[string]json.RawMessage, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &m); err != nil || m == nil {
		return nil, fmt.Errorf("--extra-body: want a JSON object, e.g. '{\"top_p\": 0.9}': %v", errOrNull(err))
	}
	for k := range m {
		if slices.Contains(bodyKeysOwned, k) {
			return nil, fmt.Errorf("--extra-body: %q is the load test's own (it sends the traffic's prompts, streaming)", k)
		}
	}
	return m, nil
}

func errOrNull(err error) error {
	if err == nil {
		return errors.New("got null")
	}
	return err
}

// mergeBody adds extra's fields to the JSON object body, replacing those of
// the same name.
func mergeBody(body []byte, extra map[string]json.RawMessage) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	for k, v := range extra {
		m[k] = v
	}
	return json.Marshal(m)
}
