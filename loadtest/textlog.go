package loadtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/loadgen"
)

// textLog stores the prompt, the reasoning and the answer of the fraction
// of requests --save-text allows (texts.jsonl in the run directory); by
// default nothing is stored, not even the file, since prompts and
// reasoning traces are private.
type textLog struct {
	mu  sync.Mutex
	f   *os.File
	enc *json.Encoder
}

func newTextLog(dir string, rate float64) (*textLog, error) {
	if rate <= 0 {
		return &textLog{}, nil
	}
	f, err := os.Create(filepath.Join(dir, loadgen.TextsFile))
	if err != nil {
		return nil, inputerr.New(err)
	}
	return &textLog{f: f, enc: json.NewEncoder(f)}, nil
}

// write stores one request's texts: prompt is what was sent (the user
// message, or the completions prompt).
func (t *textLog) write(id, prompt string, m *loadgen.Measurement) {
	if t.f == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	_ = t.enc.Encode(struct {
		ID        string `json:"id"`
		Prompt    string `json:"prompt"`
		Reasoning string `json:"reasoning,omitempty"`
		Answer    string `json:"answer,omitempty"`
	}{id, prompt, m.Reasoning, m.Text})
}

func (t *textLog) close() {
	if t.f != nil {
		t.f.Close()
	}
}
