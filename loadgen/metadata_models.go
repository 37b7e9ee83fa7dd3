package loadgen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// maxMetadataBytes bounds a /v1/models or /version body: a server with
// many LoRA adapters lists one card each.
const maxMetadataBytes = 8 << 20

// ModelCard is one entry of vLLM's GET /v1/models
// (vllm/entrypoints/openai/models/api_router.py returning
// ModelList.model_dump()).
type ModelCard struct {
	// ID is a served model name (--served-model-name, else the path).
	ID string `json:"id"`
	// Root is the model path or HF repo; for a LoRA card, the adapter's.
	Root string `json:"root,omitempty"`
	// Parent is the base model of a LoRA adapter, "" for a base model.
	Parent string `json:"parent,omitempty"`
	// MaxModelLen is the effective context length (after auto-fit); 0
	// when absent, as on LoRA cards.
	MaxModelLen int64  `json:"max_model_len,omitempty"`
	OwnedBy     string `json:"owned_by,omitempty"`
	Created     int64  `json:"created,omitempty"`
}

// ModelsInfo is the server's model list.
type ModelsInfo struct {
	Models []ModelCard `json:"models"`
}

// Find returns the card whose ID is id.
func (m ModelsInfo) Find(id string) (ModelCard, bool) {
	for _, c := range m.Models {
		if c.ID == id {
			return c, true
		}
	}
	return ModelCard{}, false
}

// MaxModelLen is the context length serving id: its own, or its parent's
// for a LoRA adapter. With id "" it is the first base model's. 0 when
// unknown.
func (m ModelsInfo) MaxModelLen(id string) int64 {
	if id == "" {
		for _, c := range m.Models {
			if c.Parent == "" && c.MaxModelLen > 0 {
				return c.MaxModelLen
			}
		}
		return 0
	}
	c, ok := m.Find(id)
	if !ok {
		return 0
	}
	if c.MaxModelLen == 0 && c.Parent != "" {
		if p, ok := m.Find(c.Parent); ok {
			return p.MaxModelLen
		}
	}
	return c.MaxModelLen
}

// FetchModels reads GET /v1/models. baseURL is the server root or the
// OpenAI base (…/v1); apiKey, when set, goes in the Authorization header.
// client nil means http.DefaultClient; ctx bounds the call.
func FetchModels(ctx context.Context, client *http.Client, baseURL, apiKey string) (ModelsInfo, error) {
	body, status, err := metadataGet(ctx, client, baseURL, "v1/models", apiKey)
	if err != nil {
		return ModelsInfo{}, err
	}
	if status != http.StatusOK {
		return ModelsInfo{}, fmt.Errorf("models: http %d: %s", status, scrapeBodyExcerpt(strings.NewReader(string(body))))
	}
	return ParseModels(body)
}

// ParseModels reads a /v1/models body.
func ParseModels(body []byte) (ModelsInfo, error) {
	var list struct {
		Data []struct {
			ID          string  `json:"id"`
			Root        *string `json:"root"`
			Parent      *string `json:"parent"`
			MaxModelLen *int64  `json:"max_model_len"`
			OwnedBy     string  `json:"owned_by"`
			Created     int64   `json:"created"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return ModelsInfo{}, fmt.Errorf("models: %w", err)
	}
	info := ModelsInfo{Models: make([]ModelCard, 0, len(list.Data))}
	for _, d := range list.Data {
		c := ModelCard{ID: d.ID, OwnedBy: d.OwnedBy, Created: d.Created}
		if d.Root != nil {
			c.Root = *d.Root
		}
		if d.Parent != nil {
			c.Parent = *d.Parent
		}
		if d.MaxModelLen != nil {
			c.MaxModelLen = *d.MaxModelLen
		}
		info.Models = append(info.Models, c)
	}
	return info, nil
}

// FetchVersion reads vLLM's GET /version, {"version": "0.11.0"}. A server
// without that route (404: another OpenAI-compatible server) gives "" and
// no error.
func FetchVersion(ctx context.Context, client *http.Client, baseURL, apiKey string) (string, error) {
	body, status, err := metadataGet(ctx, client, baseURL, "version", apiKey)
	if err != nil {
		return "", err
	}
	if status == http.StatusNotFound {
		// SGLang's version is in its server info.
		if body, status, err = metadataGet(ctx, client, baseURL, "get_server_info", apiKey); err != nil || status == http.StatusNotFound {
			return "", err
		}
	}
	if status != http.StatusOK {
		return "", fmt.Errorf("version: http %d: %s", status, scrapeBodyExcerpt(strings.NewReader(string(body))))
	}
	var v struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return "", fmt.Errorf("version: %w", err)
	}
	return v.Version, nil
}

// metadataGet GETs path under the server root and returns the body and
// status.
func metadataGet(ctx context.Context, client *http.Client, baseURL, path, apiKey string) ([]byte, int, error) {
	root, err := serverRoot(baseURL)
	if err != nil {
		return nil, 0, err
	}
	if client == nil {
		client = http.DefaultClient
	}
	u := root.JoinPath(path)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	req.Header.Set("Accept", "application/json")
	scrapeAuthorize(req, apiKey)
	resp, err := client.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes+1))
	if err != nil {
		return nil, 0, fmt.Errorf("%s: read: %w", path, err)
	}
	if len(body) > maxMetadataBytes {
		return nil, 0, errors.New(path + ": response larger than 8 MiB")
	}
	return body, resp.StatusCode, nil
}
