package vllmapi

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// Error types vLLM puts in error bodies (the mapping of exceptions to
// statuses is vllm/entrypoints/serve/utils/error_response.py).
const (
	ErrorTypeBadRequest = "BadRequestError"     // 400: over max_model_len, bad parameters
	ErrorTypeNotFound   = "NotFoundError"       // 404: unknown model
	ErrorTypeInternal   = "InternalServerError" // 500: engine generation error
)

// ErrorResponse is the current error body, {"error": {...}}
// (vllm/entrypoints/openai/engine/protocol.py ErrorResponse). The same
// object arrives inside a 200 stream when generation fails after the
// headers were sent, as "data: {"error": {...}}" followed by [DONE].
type ErrorResponse struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is the inner error object (ErrorInfo).
type ErrorDetail struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    int     `json:"code"`
}

// FlatError is the older flat body, {"object": "error", "message": ...,
// "type": ..., "param": ..., "code": 400}, still met on older servers (see
// error-400-flat-object-error-matryoshka.json).
type FlatError struct {
	Object  string  `json:"object"`
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    int     `json:"code"`
}

// NewError builds the current error body for status and message.
func NewError(status int, typ, message string) ErrorResponse {
	return ErrorResponse{Error: ErrorDetail{Message: message, Type: typ, Code: status}}
}

// maxDetailBytes bounds the text taken from a non-string "detail".
const maxDetailBytes = 512

// ParseError reads an error body in any shape seen from vLLM and the
// servers in front of it: {"error": {"message", "type", "param", "code"}};
// the flat {"object": "error", "message", ..., "code"}; {"error": "text"}
// (vLLM's API-key middleware answers 401 {"error": "Unauthorized"}); and
// FastAPI's {"detail": ...} (404 on an unknown route). code is 0 when the
// body has none or a non-numeric one (OpenAI's "invalid_api_key"). ok is
// false when body holds no error message.
func ParseError(body []byte) (msg, typ string, code int, ok bool) {
	var b struct {
		Error   json.RawMessage `json:"error"`
		Object  string          `json:"object"`
		Message *string         `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &b) != nil {
		return "", "", 0, false
	}
	raw := bytes.TrimSpace(b.Error)
	switch {
	case len(raw) > 0 && raw[0] == '{':
		var d struct {
			Message string          `json:"message"`
			Type    string          `json:"type"`
			Code    json.RawMessage `json:"code"`
		}
		if json.Unmarshal(raw, &d) != nil {
			return "", "", 0, false
		}
		return d.Message, d.Type, errorCode(d.Code), d.Message != "" || d.Type != ""
	case len(raw) > 0 && raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" {
			return s, "", errorCode(b.Code), true
		}
	}
	if b.Message != nil && (b.Object == ObjectError || *b.Message != "") {
		return *b.Message, b.Type, errorCode(b.Code), true
	}
	if d := bytes.TrimSpace(b.Detail); len(d) > 0 && !bytes.Equal(d, []byte("null")) {
		var s string
		if json.Unmarshal(d, &s) == nil {
			return s, "", 0, s != ""
		}
		// A validation error list: keep its JSON, bounded.
		if len(d) > maxDetailBytes {
			d = d[:maxDetailBytes]
		}
		return strings.ToValidUTF8(string(d), "?"), "", 0, true
	}
	return "", "", 0, false
}

// errorCode reads a code that is a JSON number or a numeric string.
func errorCode(raw json.RawMessage) int {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return 0
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0
		}
		raw = []byte(strings.TrimSpace(s))
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1e9 {
		return 0
	}
	return int(f)
}

// IsRejection reports whether an HTTP error turned the request away
// rather than failing it: 429 (a rate limiter or gateway in front of vLLM;
// vLLM itself has no admission queue limit) and vLLM's 400 for a prompt
// plus output over max_model_len (vllm/renderers/params.py
// _token_len_check, "This model's maximum context length is …"; the
// max_tokens and engine-side checks of vllm/v1/engine/input_processor.py
// word it differently). These are the simulator's rejected requests.
func IsRejection(status int, message string) bool {
	switch status {
	case 429:
		return true
	case 400:
		m := strings.ToLower(message)
		return strings.Contains(m, "maximum context length") ||
			strings.Contains(m, "cannot be greater than max_model_len") ||
			strings.Contains(m, "longer than the maximum model length")
	}
	return false
}
