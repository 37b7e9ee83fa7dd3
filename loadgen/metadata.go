package loadgen

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/thinkcap/thinkcap/internal/buildinfo"
)

// Metadata describes a load-test run: what was targeted, with which
// command, and what the server said about itself. It is written as the run
// directory's metadata.json. No secret belongs here: the API key comes
// from the environment, and WriteMetadata redacts the command line, the
// URL and secret-looking options again in case one slipped in.
type Metadata struct {
	// ThinkcapVersion is buildinfo.Version() when left empty: the module
	// version and the VCS revision, e.g. "(devel) rev 9a1a6c8 …, dirty".
	ThinkcapVersion string `json:"thinkcap_version"`
	// Command is the thinkcap command line (os.Args), redacted.
	Command   []string `json:"command"`
	TargetURL string   `json:"target_url"`
	// ServerVersion is vLLM's /version (SGLang's /get_server_info
	// version); "" when the server has none.
	ServerVersion string `json:"server_version,omitempty"`
	// Engine is the server's kind, vllm or sglang: --engine, or detected
	// (DetectEngine); "" when nothing said.
	Engine string `json:"engine,omitempty"`
	Model  string `json:"model"`
	// MaxModelLen is the served model's context length from /v1/models.
	MaxModelLen int64       `json:"max_model_len,omitempty"`
	Models      []ModelCard `json:"models,omitempty"`
	// CacheConfig is vllm:cache_config_info from the first scrape that
	// had it (FirstCacheConfig).
	CacheConfig *CacheConfig `json:"cache_config,omitempty"`
	Start       time.Time    `json:"start"`
	// Shard is this run's part of a sharded load test (--shard I/N); nil
	// for a whole one. StartAt is --start-at, the wall time every shard's
	// schedule began at; ScheduleStart when this run's did (the records'
	// scheduled_s count from it).
	Shard         *Shard    `json:"shard,omitempty"`
	StartAt       time.Time `json:"start_at,omitzero"`
	ScheduleStart time.Time `json:"schedule_start,omitzero"`
	// ServerClockOffsetS is the server's clock (its Date header, to the
	// second) less this machine's, at the preflight: how far shards on
	// other machines may disagree.
	ServerClockOffsetS *float64 `json:"server_clock_offset_s,omitempty"`
	// Shards lists the runs a merged directory was made of (thinkcap merge).
	Shards []ShardRun `json:"shards,omitempty"`
	End    time.Time  `json:"end,omitzero"`
	// State is how the run stands: RunRunning from its start (found by a
	// reader, the process died), then RunComplete, RunInterrupted or
	// RunAborted; "" in runs written before the key existed.
	State string `json:"state,omitempty"`
	// Interrupted is true unless State is RunComplete.
	Interrupted bool `json:"interrupted"`
	// Reason says why the run ended early.
	Reason string `json:"reason,omitempty"`
	// RequestsPlanned is the schedule's length; RequestsFinished the
	// result records written.
	RequestsPlanned  int `json:"requests_planned"`
	RequestsFinished int `json:"requests_finished"`
	// Scrape counts the /metrics scrapes and their failures.
	Scrape *ScrapeStats `json:"scrape,omitempty"`
	// Options holds the run's resolved options, free-form.
	Options map[string]any `json:"options,omitempty"`
}

// metadataRedacted replaces every secret WriteMetadata and RedactCommandLine find.
const metadataRedacted = "REDACTED"

// WriteMetadata writes m as indented JSON to path, through a temporary
// file renamed into place so a reader never sees half a file.
func WriteMetadata(path string, m Metadata) error {
	m.Command = RedactCommandLine(m.Command)
	m.TargetURL = redactURLSecrets(m.TargetURL)
	if m.ThinkcapVersion == "" {
		m.ThinkcapVersion = buildinfo.Version()
	}
	if len(m.Options) > 0 {
		opts := make(map[string]any, len(m.Options))
		for k, v := range m.Options {
			if isSecretName(k) {
				v = metadataRedacted
			}
			opts[k] = v
		}
		m.Options = opts
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("metadata %s: %w", path, err)
	}
	data = append(data, '\n')
	tmp, err := os.CreateTemp(filepath.Dir(path), ".metadata-*.json")
	if err != nil {
		return fmt.Errorf("metadata: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("metadata %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("metadata %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("metadata %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("metadata %s: %w", path, err)
	}
	return nil
}

// FirstCacheConfig returns the cache config of the first sample that has
// one, nil when none has.
func FirstCacheConfig(samples []Sample) *CacheConfig {
	for i := range samples {
		if samples[i].CacheConfig != nil {
			return samples[i].CacheConfig
		}
	}
	return nil
}

// RedactCommandLine returns a copy of args safe to record: the value of
// any flag named like a secret (--api-key…, --token, --hf-token,
// --password, --secret…, --authorization), in either `--flag value` or
// `--flag=value` form, the value of an Authorization-style header given
// with -H/--header, a password in a URL, and every occurrence of the
// given secrets are replaced by REDACTED.
func RedactCommandLine(args []string, secrets ...string) []string {
	out := make([]string, len(args))
	copy(out, args)
	for i := 0; i < len(out); i++ {
		a := out[i]
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			out[i] = redactCommandArg(a, secrets)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		dashes := a[:len(a)-len(strings.TrimLeft(a, "-"))]
		switch {
		case isSecretName(name) && hasValue:
			out[i] = dashes + name + "=" + metadataRedacted
		case isSecretName(name) && i+1 < len(out):
			out[i+1] = metadataRedacted
			i++
		case isHeaderFlagName(name) && hasValue:
			out[i] = dashes + name + "=" + redactHeaderValue(value)
		case isHeaderFlagName(name) && i+1 < len(out):
			out[i+1] = redactCommandArg(redactHeaderValue(out[i+1]), secrets)
			i++
		default:
			out[i] = redactCommandArg(a, secrets)
		}
	}
	return out
}

// isSecretName reports whether a flag (or option) name holds a secret. It
// matches whole words so that --max-tokens and --prompt-tokens stay.
func isSecretName(name string) bool {
	n := strings.ToLower(strings.TrimLeft(name, "-"))
	n = strings.ReplaceAll(n, "_", "-")
	switch {
	case strings.HasPrefix(n, "api-key"), strings.HasPrefix(n, "apikey"):
		return true
	case n == "token" || strings.HasSuffix(n, "-token"):
		return true
	case strings.Contains(n, "password"), strings.Contains(n, "secret"):
		return true
	case n == "authorization" || n == "auth" || n == "bearer":
		return true
	}
	return false
}

// isHeaderFlagName is curl's and most tools' flag for an extra HTTP header.
func isHeaderFlagName(name string) bool { return name == "H" || name == "header" }

// redactHeaderValue hides the value of a credential header "Name: value".
func redactHeaderValue(h string) string {
	name, _, ok := strings.Cut(h, ":")
	if !ok {
		return h
	}
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "authorization", "proxy-authorization", "x-api-key", "api-key", "cookie":
		return name + ": " + metadataRedacted
	}
	return h
}

// redactCommandArg hides known secrets and URL passwords inside one argument.
func redactCommandArg(a string, secrets []string) string {
	for _, s := range secrets {
		if s != "" {
			a = strings.ReplaceAll(a, s, metadataRedacted)
		}
	}
	if strings.Contains(a, "://") {
		a = redactURLSecrets(a)
	}
	return a
}

// redactURLSecrets hides a URL's password and secret-looking query values; text
// that is not an absolute URL is returned as is.
func redactURLSecrets(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return s
	}
	changed := false
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), metadataRedacted)
		changed = true
	}
	if q := u.Query(); len(q) > 0 {
		for k := range q {
			if isSecretName(k) || strings.EqualFold(k, "key") {
				q.Set(k, metadataRedacted)
				changed = true
			}
		}
		if changed {
			u.RawQuery = q.Encode()
		}
	}
	if !changed {
		return s
	}
	return u.String()
}

// Shard is one part of a sharded load test: Index of Count (from 0).
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// String is the shard as --shard reads it, "I/N".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// ParseShard reads --shard I/N: 0 <= I < N.
func ParseShard(spec string) (Shard, error) {
	i, n, ok := strings.Cut(spec, "/")
	var s Shard
	var err1, err2 error
	s.Index, err1 = strconv.Atoi(strings.TrimSpace(i))
	s.Count, err2 = strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil || s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return Shard{}, fmt.Errorf("--shard %q: want I/N with 0 <= I < N, e.g. 0/4", spec)
	}
	return s, nil
}

// ShardRun is one shard of a merged run, as metadata.json lists it.
type ShardRun struct {
	Dir                string    `json:"dir"`
	Shard              *Shard    `json:"shard,omitempty"`
	State              string    `json:"state"`
	Reason             string    `json:"reason,omitempty"`
	RequestsPlanned    int       `json:"requests_planned"`
	RequestsFinished   int       `json:"requests_finished"`
	ScheduleStart      time.Time `json:"schedule_start,omitzero"`
	ServerClockOffsetS *float64  `json:"server_clock_offset_s,omitempty"`
	// OffsetS is how much later than the earliest shard this one's
	// schedule began: the time its records were moved by.
	OffsetS float64 `json:"offset_s"`
	Scraped bool    `json:"scraped"`
}
