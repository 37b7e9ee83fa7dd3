package loadgen

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/thinkcap/thinkcap/loadgen/vllmapi"
)

// maxSpecPositions bounds the `position` label of the per-position
// acceptance counter: vLLM numbers positions 0..K-1 with K the number of
// speculative tokens (single digits in practice), and a bound keeps a
// hostile label from allocating a huge slice.
const maxSpecPositions = 256

// ParseMetrics reads Prometheus text exposition (what vLLM serves on
// /metrics) and extracts the Snapshot thinkcap needs.
//
// It is tolerant, because real dumps are untidy: prometheus_client's
// `_created` gauges, Python process collectors and families thinkcap does
// not read are skipped, CRLF line ends are accepted, and the input is split
// into one chunk per metric family before expfmt parses it, so a malformed
// or truncated family loses only itself. A last line without its newline
// (a capture cut mid-line) is dropped, since its value may be cut short.
// The Snapshot holds everything that parsed even when err is non-nil; err
// joins one error per family that did not.
func ParseMetrics(r io.Reader) (Snapshot, error) {
	data, readErr := io.ReadAll(r)
	fams, err := parseFamilies(data)
	if readErr != nil {
		err = errors.Join(fmt.Errorf("metrics: read: %w", readErr), err)
	}
	return snapshotFromFamilies(fams), err
}

// familyChunk is the text of one metric family and the line it starts on.
type familyChunk struct {
	name  string
	line  int // 1-based line of the chunk's first line in the input
	lines [][]byte
}

// splitFamilies cuts exposition text into chunks at each `# HELP` or
// `# TYPE` line that names a family other than the current chunk's. A
// final line without a newline is reported as truncated and left out.
func splitFamilies(data []byte) ([]familyChunk, error) {
	var (
		chunks []familyChunk
		err    error
	)
	if n := len(data); n > 0 && data[n-1] != '\n' {
		cut := bytes.LastIndexByte(data, '\n') + 1
		lineNo := bytes.Count(data[:cut], []byte{'\n'}) + 1
		err = fmt.Errorf("metrics line %d: no newline at end of input (truncated capture?): line dropped", lineNo)
		data = data[:cut]
	}
	lineNo := 0
	for len(data) > 0 {
		lineNo++
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if name, ok := familyOfMetaLine(line); ok && (len(chunks) == 0 || chunks[len(chunks)-1].name != name) {
			chunks = append(chunks, familyChunk{name: name, line: lineNo})
		} else if len(chunks) == 0 {
			chunks = append(chunks, familyChunk{line: lineNo})
		}
		c := &chunks[len(chunks)-1]
		c.lines = append(c.lines, line)
	}
	return chunks, err
}

// familyOfMetaLine returns the family named by a `# HELP name …` or
// `# TYPE name …` line.
func familyOfMetaLine(line []byte) (string, bool) {
	rest, ok := bytes.CutPrefix(line, []byte("#"))
	if !ok {
		return "", false
	}
	fields := strings.Fields(string(rest))
	if len(fields) < 2 || (fields[0] != "HELP" && fields[0] != "TYPE") {
		return "", false
	}
	return fields[1], true
}

// readFamilies are the families whose values a Snapshot holds; the rest
// are only noted as present.
var readFamilies = func() map[string]bool {
	m := map[string]bool{metricCacheConfig: true}
	for _, n := range []string{metricQueueTime, metricTTFT, metricRunning, metricWaiting, metricKVUsage, metricPreemptions,
		metricPromptTokens, metricGenerationTokens, metricRequestSuccess, metricPrefixQueries,
		metricPrefixHits, metricSpecDrafts, metricSpecDraftTokens, metricSpecAccepted, metricSpecAcceptedByPos} {
		for _, a := range scrapeNames(n) {
			m[a] = true
		}
	}
	return m
}()

// parseFamilies parses each family chunk with expfmt and merges the
// results; a family split over several chunks keeps all its series.
// Families a Snapshot does not read (histogram buckets are most of a
// vLLM dump) are only recorded by name: expfmt's text parser costs about
// 1 ms per 20 KB, paid on the load generator's CPU every scrape.
func parseFamilies(data []byte) (map[string]*dto.MetricFamily, error) {
	chunks, splitErr := splitFamilies(data)
	errs := []error{splitErr}
	out := make(map[string]*dto.MetricFamily)
	var buf bytes.Buffer
	for _, c := range chunks {
		if skippable(c) {
			if _, ok := out[c.name]; !ok {
				out[c.name] = &dto.MetricFamily{Name: &c.name, Metric: []*dto.Metric{{}}}
			}
			continue
		}
		buf.Reset()
		for _, l := range c.lines {
			buf.Write(l)
			buf.WriteByte('\n')
		}
		// UTF-8 validation accepts every legacy name (vllm:… included)
		// and quoted names of newer exporters.
		p := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := p.TextToMetricFamilies(&buf)
		if err != nil {
			errs = append(errs, chunkError(c, err))
		}
		for name, f := range fams {
			prev, ok := out[name]
			switch {
			case !ok:
				out[name] = f
			case prev.GetType() == f.GetType():
				prev.Metric = append(prev.Metric, f.Metric...)
			default:
				errs = append(errs, fmt.Errorf("metrics line %d: family %s: type %s after %s", c.line, name, f.GetType(), prev.GetType()))
			}
		}
	}
	return out, errors.Join(errs...)
}

// skippable reports whether a chunk holds only samples of a vllm:* or
// other family that a Snapshot does not read, so that noting its name is
// enough. A chunk with no sample, or with a sample of another family
// (an untyped one without its own TYPE line), is parsed.
func skippable(c familyChunk) bool {
	if c.name == "" || readFamilies[c.name] {
		return false
	}
	samples := 0
	for _, l := range c.lines {
		l = bytes.TrimLeft(l, " \t")
		if len(l) == 0 || l[0] == '#' {
			continue
		}
		rest, ok := bytes.CutPrefix(l, []byte(c.name))
		if !ok || (len(rest) > 0 && rest[0] != '_' && rest[0] != '{' && rest[0] != ' ' && rest[0] != '\t') {
			return false
		}
		samples++
	}
	return samples > 0
}

// chunkError renumbers an expfmt error from chunk lines to input lines.
func chunkError(c familyChunk, err error) error {
	name := c.name
	if name == "" {
		name = "(untyped)"
	}
	var pe expfmt.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("metrics line %d: family %s: %s", c.line+pe.Line-1, name, pe.Msg)
	}
	return fmt.Errorf("metrics line %d: family %s: %w", c.line, name, err)
}

// snapshotFromFamilies extracts thinkcap's quantities from parsed families.
func snapshotFromFamilies(fams map[string]*dto.MetricFamily) Snapshot {
	var s Snapshot
	for name := range fams {
		if (strings.HasPrefix(name, "vllm:") || isSGLang(name)) && !strings.HasSuffix(name, "_created") {
			s.Families = append(s.Families, name)
		}
	}
	slices.Sort(s.Families)

	engines := make(map[string]bool)
	// sum adds a family's samples over the data-parallel engines; a gauge's
	// engine labels also count the engines.
	sum := func(f Field, metric string, gauge bool) float64 {
		fam := firstFamily(fams, scrapeNames(metric)...)
		if fam == nil {
			return 0
		}
		seen := engines
		if !gauge {
			seen = nil
		}
		total, ok := sumOverGroups(fam, seen)
		if ok {
			s.Present |= f
		}
		return total
	}
	s.Running = sum(FieldRunning, metricRunning, true)
	s.Waiting = sum(FieldWaiting, metricWaiting, true)

	if fam := firstFamily(fams, scrapeNames(metricKVUsage)...); fam != nil {
		var sum, peak float64
		n := 0
		for _, m := range fam.Metric {
			if v, ok := metricValue(m); ok {
				sum += v
				peak = max(peak, v)
				n++
				engines[seriesGroup(fam.GetName(), m)] = true
			}
		}
		if n > 0 {
			s.Present |= FieldKVUsage
			s.KVUsage, s.KVUsageMax = sum/float64(n), peak
		}
	}
	s.Engines = len(engines)

	s.Preemptions = sum(FieldPreemptions, metricPreemptions, false)
	s.PromptTokens = sum(FieldPromptTokens, metricPromptTokens, false)
	s.GenerationTokens = sum(FieldGenerationTokens, metricGenerationTokens, false)
	s.PrefixQueries = sum(FieldPrefixQueries, metricPrefixQueries, false)
	s.PrefixHits = sum(FieldPrefixHits, metricPrefixHits, false)
	s.SpecDrafts = sum(FieldSpecDrafts, metricSpecDrafts, false)
	s.SpecDraftTokens = sum(FieldSpecDraftTokens, metricSpecDraftTokens, false)
	s.SpecAccepted = sum(FieldSpecAccepted, metricSpecAccepted, false)

	if fam := firstFamily(fams, scrapeNames(metricSpecAcceptedByPos)...); fam != nil {
		for _, m := range fam.Metric {
			pos, err := strconv.Atoi(labelValue(m, vllmapi.LabelPosition))
			v, ok := metricValue(m)
			if err != nil || pos < 0 || pos >= maxSpecPositions || !ok {
				continue
			}
			if pos >= len(s.SpecAcceptedPerPos) {
				s.SpecAcceptedPerPos = append(s.SpecAcceptedPerPos, make([]float64, pos+1-len(s.SpecAcceptedPerPos))...)
			}
			s.SpecAcceptedPerPos[pos] += v
			s.Present |= FieldSpecAcceptedPerPos
		}
	}

	if fam := firstFamily(fams, scrapeNames(metricRequestSuccess)...); fam != nil {
		for _, m := range fam.Metric {
			if v, ok := metricValue(m); ok {
				if s.RequestSuccess == nil {
					s.RequestSuccess = make(map[string]float64)
				}
				s.RequestSuccess[labelValue(m, vllmapi.LabelFinishedReason)] += v
				s.Present |= FieldRequestSuccess
			}
		}
	}

	if fam := firstFamily(fams, scrapeNames(metricQueueTime)...); fam != nil && fam.GetType() == dto.MetricType_HISTOGRAM {
		if h := histogramFrom(fam); h != nil {
			s.QueueTime = h
			s.Present |= FieldQueueTime
		}
	}

	if fam := firstFamily(fams, scrapeNames(metricTTFT)...); fam != nil && fam.GetType() == dto.MetricType_HISTOGRAM {
		if h := histogramFrom(fam); h != nil {
			s.TTFT = h
			s.Present |= FieldTTFT
		}
	}

	if fam := fams[metricCacheConfig]; fam != nil {
		if cc := cacheConfigFrom(fam); cc != nil {
			s.CacheConfig = cc
			s.Present |= FieldCacheConfig
		}
	}
	return s
}

// firstFamily returns the first of names present in fams.
func firstFamily(fams map[string]*dto.MetricFamily, names ...string) *dto.MetricFamily {
	for _, n := range names {
		if f, ok := fams[n]; ok && len(f.Metric) > 0 {
			return f
		}
	}
	return nil
}

// metricValue is the value of a counter, gauge or untyped sample; NaN and
// infinities count as absent so that nothing downstream (JSON above all)
// sees them.
func metricValue(m *dto.Metric) (float64, bool) {
	var v float64
	switch {
	case m.Counter != nil:
		v = m.Counter.GetValue()
	case m.Gauge != nil:
		v = m.Gauge.GetValue()
	case m.Untyped != nil:
		v = m.Untyped.GetValue()
	default:
		return 0, false
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// labelValue returns the value of the named label, "" when absent.
func labelValue(m *dto.Metric, name string) string {
	for _, l := range m.Label {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// cacheConfigFrom reads vllm:cache_config_info. With several data-parallel
// engines it keeps the series of the lowest engine index and counts them.
func cacheConfigFrom(fam *dto.MetricFamily) *CacheConfig {
	var best *dto.Metric
	bestEngine := ""
	for _, m := range fam.Metric {
		e := labelValue(m, vllmapi.LabelEngine)
		if best == nil || engineLess(e, bestEngine) {
			best, bestEngine = m, e
		}
	}
	if best == nil {
		return nil
	}
	cc := &CacheConfig{Engine: bestEngine, Engines: len(fam.Metric), Labels: make(map[string]string, len(best.Label))}
	for _, l := range best.Label {
		cc.Labels[l.GetName()] = l.GetValue()
	}
	cc.NumGPUBlocks = labelInt(cc.Labels[vllmapi.LabelNumGPUBlocks])
	cc.BlockSize = labelInt(cc.Labels[vllmapi.LabelBlockSize])
	cc.CacheDtype = cc.Labels[vllmapi.LabelCacheDtype]
	cc.EnablePrefixCaching = strings.EqualFold(cc.Labels[vllmapi.LabelEnablePrefixCaching], "true")
	cc.GPUMemoryUtilization = labelFloat(cc.Labels[vllmapi.LabelGPUMemoryUtilization])
	cc.KVCacheSizeTokens = labelInt(cc.Labels[vllmapi.LabelKVCacheSizeTokens])
	cc.KVCacheMaxConcurrency = labelFloat(cc.Labels[vllmapi.LabelKVCacheMaxConcurrency])
	cc.KVCacheMemoryBytes = labelInt(cc.Labels["kv_cache_memory_bytes"])
	return cc
}

// engineLess orders engine labels numerically ("2" < "10"), non-numbers last.
func engineLess(a, b string) bool {
	ai, aerr := strconv.Atoi(a)
	bi, berr := strconv.Atoi(b)
	switch {
	case aerr == nil && berr == nil:
		return ai < bi
	case aerr == nil:
		return true
	case berr == nil:
		return false
	}
	return a < b
}

// labelFloat parses a numeric label; Python's "None" and anything else
// unparsable (or not finite) give 0.
func labelFloat(s string) float64 {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// labelInt parses an integer label, accepting "2375" and "2375.0".
func labelInt(s string) int64 {
	v := labelFloat(s)
	if v <= math.MinInt64 || v >= math.MaxInt64 {
		return 0
	}
	return int64(v)
}
