package loadgen

import (
	"fmt"
	"net/url"
	"strings"
)

// serverRoot turns a user's base URL into the server root: vLLM serves
// /metrics and /version at the root and the OpenAI routes under /v1, and
// users pass either http://host:8000 or the OpenAI base http://host:8000/v1.
func serverRoot(base string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil {
		return nil, fmt.Errorf("server url: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("server url %q: scheme must be http or https", u.Redacted())
	}
	if u.Host == "" {
		return nil, fmt.Errorf("server url %q: no host", u.Redacted())
	}
	u.Path = strings.TrimSuffix(strings.TrimRight(u.Path, "/"), "/v1")
	u.RawPath, u.RawQuery, u.Fragment = "", "", ""
	return u, nil
}
