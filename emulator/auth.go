package emulator

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// requireAPIKey guards the API as `vllm serve --api-key` does (vLLM's
// AuthenticationMiddleware, vllm/entrypoints/openai/api_server.py and its
// successors): a request under /v1 whose Authorization header is not
// "Bearer <one of the keys>" gets 401 {"error": "Unauthorized"}; /health,
// /version and /metrics stay open (so that probes and scrapers need no
// key), and so does a CORS preflight (OPTIONS). No keys: no guard.
func requireAPIKey(keys []string, next http.Handler) http.Handler {
	if len(keys) == 0 {
		return next
	}
	hashes := make([][32]byte, len(keys))
	for i, k := range keys {
		hashes[i] = sha256.Sum256([]byte(k))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodOptions && strings.HasPrefix(r.URL.Path, "/v1") && !bearerMatches(r.Header.Get("Authorization"), hashes) {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "Unauthorized"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// bearerMatches compares hashes in constant time, as vLLM does, so that
// the time to refuse says nothing about the key.
func bearerMatches(header string, hashes [][32]byte) bool {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return false
	}
	h := sha256.Sum256([]byte(token))
	match := 0
	for _, k := range hashes {
		match |= subtle.ConstantTimeCompare(h[:], k[:])
	}
	return match == 1
}
