package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"

	"github.com/thinkcap/thinkcap/loadgen"
)

// textLog stores generated text for the fraction of requests --save-text
// allows (texts.jsonl in the run directory); by default nothing is stored,
// since prompts and reasoning traces are private.
type textLog struct {
	mu  sync.Mutex
	f   *os.File
	enc *json.Encoder
}

func newTextLog(dir string, rate float64) (*textLog, error) {
	if rate <= 0 {
		return &textLog{}, nil
	}
	f, err := os.Create(filepath.Join(dir, "texts.jsonl"))
	if err != nil {
		return nil, badInput(err)
	}
	return &textLog{f: f, enc: json.NewEncoder(f)}, nil
}

func (t *textLog) write(id string, m *loadgen.Measurement) {
	if t.f == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	_ = t.enc.Encode(struct {
		ID        string `json:"id"`
		Reasoning string `json:"reasoning,omitempty"`
		Answer    string `json:"answer,omitempty"`
	}{id, m.Reasoning, m.Text})
}

func (t *textLog) close() {
	if t.f != nil {
		t.f.Close()
	}
}
