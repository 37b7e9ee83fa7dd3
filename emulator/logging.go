package emulator

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// LogLevel orders log lines as Python's logging does, which vLLM and
// uvicorn use.
type LogLevel int

// Log levels, with Python's values.
const (
	LevelDebug    LogLevel = 10
	LevelInfo     LogLevel = 20
	LevelWarning  LogLevel = 30
	LevelError    LogLevel = 40
	LevelCritical LogLevel = 50
)

var levelNames = map[LogLevel]string{
	LevelDebug: "DEBUG", LevelInfo: "INFO", LevelWarning: "WARNING", LevelError: "ERROR", LevelCritical: "CRITICAL",
}

func (l LogLevel) String() string {
	if n, ok := levelNames[l]; ok {
		return n
	}
	return "Level " + strconv.Itoa(int(l))
}

// ParseLogLevel reads debug, info, warning, error or critical (uvicorn's
// --log-level names), in any case.
func ParseLogLevel(s string) (LogLevel, error) {
	for l, n := range levelNames {
		if strings.EqualFold(s, n) {
			return l, nil
		}
	}
	return 0, fmt.Errorf("log level %q: want debug, info, warning, error or critical", s)
}

// Logger writes the emulator's log lines in the formats of the processes a
// vLLM server runs: vLLM's own (vllm/logger.py: "%(levelname)s %(asctime)s
// [%(fileinfo)s:%(lineno)d] %(message)s", date "%m-%d %H:%M:%S"; thinkcap
// writes the file without a line number) and uvicorn's default
// ("%(levelprefix)s %(message)s", the level and a colon padded to nine
// columns). It is safe for concurrent use; a nil *Logger logs nothing.
type Logger struct {
	mu    sync.Mutex
	w     io.Writer
	level LogLevel
	buf   []byte
	// now is the clock of the timestamps (tests fix it).
	now func() time.Time
}

// NewLogger logs lines at level or above to w.
func NewLogger(w io.Writer, level LogLevel) *Logger {
	return &Logger{w: w, level: level, now: time.Now}
}

// Enabled reports whether a line at level would be written.
func (l *Logger) Enabled(level LogLevel) bool { return l != nil && level >= l.level }

// vllm writes one line as vLLM's logger does, from file.
func (l *Logger) vllm(level LogLevel, file, format string, args ...any) {
	if !l.Enabled(level) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := append(l.buf[:0], level.String()...)
	b = append(b, ' ')
	b = l.now().AppendFormat(b, "01-02 15:04:05")
	b = append(b, " ["...)
	b = append(b, file...)
	b = append(b, "] "...)
	b = fmt.Appendf(b, format, args...)
	b = append(b, '\n')
	_, _ = l.w.Write(b)
	l.buf = b
}

// uvicorn writes one line as uvicorn's default formatter does, with the
// level prefix shown (uvicorn prints it at that level whatever the
// emulator's threshold for writing it).
func (l *Logger) uvicorn(threshold, shown LogLevel, format string, args ...any) {
	if !l.Enabled(threshold) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := append(l.buf[:0], shown.String()...)
	b = append(b, ':')
	for n := len(shown.String()) + 1; n < 9; n++ {
		b = append(b, ' ')
	}
	b = append(b, ' ')
	b = fmt.Appendf(b, format, args...)
	b = append(b, '\n')
	_, _ = l.w.Write(b)
	l.buf = b
}

// Infof writes an info line in uvicorn's format (the server's own
// lifecycle lines: listening, shutting down).
func (l *Logger) Infof(format string, args ...any) { l.uvicorn(LevelInfo, LevelInfo, format, args...) }

// Warnf writes a warning line in uvicorn's format.
func (l *Logger) Warnf(format string, args ...any) {
	l.uvicorn(LevelWarning, LevelWarning, format, args...)
}

// accessLog wraps h with uvicorn's access line, written when the response
// starts (uvicorn's protocols log it on http.response.start):
//
//	INFO:     127.0.0.1:54321 - "POST /v1/chat/completions HTTP/1.1" 200 OK
//
// uvicorn logs it at info; the emulator writes it only at --log-level
// debug, so that a load test's thousands of requests stay out of the
// default output. Without a logger at debug, h is returned as it is.
func accessLog(l *Logger, h http.Handler) http.Handler {
	if !l.Enabled(LevelDebug) {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&accessWriter{ResponseWriter: w, l: l, r: r}, r)
	})
}

// accessWriter logs the access line at the response's first header or
// byte. Unwrap keeps Flush and Hijack reachable through
// http.ResponseController.
type accessWriter struct {
	http.ResponseWriter
	l      *Logger
	r      *http.Request
	logged bool
}

func (a *accessWriter) Unwrap() http.ResponseWriter { return a.ResponseWriter }

func (a *accessWriter) WriteHeader(code int) {
	a.log(code)
	a.ResponseWriter.WriteHeader(code)
}

func (a *accessWriter) Write(b []byte) (int, error) {
	a.log(http.StatusOK)
	return a.ResponseWriter.Write(b)
}

func (a *accessWriter) log(code int) {
	if a.logged {
		return
	}
	a.logged = true
	a.l.uvicorn(LevelDebug, LevelInfo, `%s - "%s %s HTTP/%d.%d" %d %s`,
		a.r.RemoteAddr, a.r.Method, a.r.URL.RequestURI(), a.r.ProtoMajor, a.r.ProtoMinor, code, http.StatusText(code))
}

// logStats writes vLLM's periodic stats line every interval until ctx is
// done (vllm/v1/metrics/loggers.py LoggingStatLogger.log): throughputs
// over the interval in tokens per wall second, the scheduler's running
// and waiting requests and the KV cache usage as last published, at info,
// or at debug when this interval and the last were idle ("avoid log noise
// on an idle production system"). The emulator passes no prompt prefixes
// to its engine, so its prefix cache hit rate is 0.
func (s *Server) logStats(ctx context.Context, interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	last, lastT := s.Stats(), time.Now()
	var lastPrompt, lastGen float64
	for {
		var now time.Time
		select {
		case <-ctx.Done():
			return
		case now = <-tick.C:
		}
		st := s.Stats()
		dt := now.Sub(lastT).Seconds()
		prompt, gen := 0.0, 0.0
		if dt > 0 {
			prompt = float64(st.PromptTokens-last.PromptTokens) / dt
			gen = float64(st.GenerationTokens-last.GenerationTokens) / dt
		}
		level := LevelInfo
		if prompt == 0 && gen == 0 && lastPrompt == 0 && lastGen == 0 {
			level = LevelDebug
		}
		s.cfg.Log.vllm(level, "loggers.py",
			"Engine %03d: Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f tokens/s, Running: %d reqs, Waiting: %d reqs, GPU KV cache usage: %.1f%%, Prefix cache hit rate: %.1f%%",
			0, prompt, gen, st.Running, st.Waiting, 100*st.KVUsage, 0.0)
		last, lastT, lastPrompt, lastGen = st, now, prompt, gen
	}
}
