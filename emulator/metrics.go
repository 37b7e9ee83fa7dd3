package emulator

import (
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/thinkcap/thinkcap/loadgen/vllmapi"
	"github.com/thinkcap/thinkcap/workload"
)

// engineLabel is the `engine` label of every series: the emulator is one
// API server in front of one engine (replicas are simulated behind it).
const engineLabel = "0"

// metrics is /metrics with vLLM's names, types and labels
// (vllm/v1/metrics/loggers.py PrometheusStatLogger). The
// scheduler gauges and token counters are read at scrape time from the
// snapshot the engine publishes after each advance (no lock on the Live);
// the histograms and per-request counters are observed by the engine
// goroutine as outputs happen. Times are wall seconds (simulated / scale).
type metrics struct {
	s   *Server
	reg *prometheus.Registry

	ttft, itl, e2e, queue prometheus.Histogram
	success               *prometheus.CounterVec

	// Speculative decoding (vllm/v1/spec_decode/metrics.py), nil when off.
	specK                          int
	drafts, draftTokens, accepted  prometheus.Counter
	acceptedPerPos                 []prometheus.Counter
	running, waiting, kvUsage      *prometheus.Desc
	preemptions, prompt, generated *prometheus.Desc
	prefixQueries, prefixHits      *prometheus.Desc
	cacheConfig                    *prometheus.Desc
}

func newMetrics(s *Server) *metrics {
	m := &metrics{s: s, reg: prometheus.NewRegistry()}
	labels := prometheus.Labels{vllmapi.LabelModelName: s.ModelName(), vllmapi.LabelEngine: engineLabel}
	hist := func(name, help string, buckets []float64) prometheus.Histogram {
		h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets, ConstLabels: labels})
		m.reg.MustRegister(h)
		return h
	}
	m.ttft = hist(vllmapi.MetricTimeToFirstTokenSeconds, "Histogram of time to first token in seconds.", vllmapi.TTFTBuckets())
	m.itl = hist(vllmapi.MetricInterTokenLatencySeconds, "Histogram of inter-token latency in seconds.", vllmapi.ITLBuckets())
	m.e2e = hist(vllmapi.MetricE2ERequestLatencySeconds, "Histogram of e2e request latency in seconds.", vllmapi.RequestLatencyBuckets())
	m.queue = hist(vllmapi.MetricRequestQueueTimeSeconds, "Histogram of time spent in WAITING phase for request.", vllmapi.RequestLatencyBuckets())
	m.success = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: vllmapi.MetricRequestSuccessTotal, Help: "Count of successfully processed requests.", ConstLabels: labels,
	}, []string{vllmapi.LabelFinishedReason})
	m.reg.MustRegister(m.success)
	if sc := s.simCfg.Speculative; sc != nil && sc.NumSpeculativeTokens > 0 {
		m.specK = sc.NumSpeculativeTokens
		counter := func(name, help string) prometheus.Counter {
			c := prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: labels})
			m.reg.MustRegister(c)
			return c
		}
		m.drafts = counter(vllmapi.MetricSpecDecodeNumDraftsTotal, "Number of spec decoding drafts.")
		m.draftTokens = counter(vllmapi.MetricSpecDecodeNumDraftTokensTotal, "Number of draft tokens.")
		m.accepted = counter(vllmapi.MetricSpecDecodeNumAcceptedTokensTotal, "Number of accepted tokens.")
		perPos := prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: vllmapi.MetricSpecDecodeNumAcceptedTokensPerPosTotal, Help: "Accepted tokens per draft position.", ConstLabels: labels,
		}, []string{vllmapi.LabelPosition})
		m.reg.MustRegister(perPos)
		for i := range m.specK {
			m.acceptedPerPos = append(m.acceptedPerPos, perPos.WithLabelValues(strconv.Itoa(i)))
		}
	}
	names := []string{vllmapi.LabelModelName, vllmapi.LabelEngine}
	m.running = prometheus.NewDesc(vllmapi.MetricNumRequestsRunning, "Number of requests in model execution batches.", names, nil)
	m.waiting = prometheus.NewDesc(vllmapi.MetricNumRequestsWaiting, "Number of requests waiting to be processed.", names, nil)
	m.kvUsage = prometheus.NewDesc(vllmapi.MetricKVCacheUsagePerc, "KV-cache usage. 1 means 100 percent usage.", names, nil)
	m.preemptions = prometheus.NewDesc(vllmapi.MetricNumPreemptionsTotal, "Cumulative number of preemption from the engine.", names, nil)
	m.prompt = prometheus.NewDesc(vllmapi.MetricPromptTokensTotal, "Number of prefill tokens processed.", names, nil)
	m.generated = prometheus.NewDesc(vllmapi.MetricGenerationTokensTotal, "Number of generation tokens processed.", names, nil)
	m.prefixQueries = prometheus.NewDesc(vllmapi.MetricPrefixCacheQueriesTotal, "Prefix cache queries, in terms of number of queried tokens.", names, nil)
	m.prefixHits = prometheus.NewDesc(vllmapi.MetricPrefixCacheHitsTotal, "Prefix cache hits, in terms of number of cached tokens.", names, nil)
	m.cacheConfig = prometheus.NewDesc(vllmapi.MetricCacheConfigInfo, "Information of the LLMEngine CacheConfig", []string{
		vllmapi.LabelBlockSize, vllmapi.LabelCacheDtype, vllmapi.LabelEnablePrefixCaching, vllmapi.LabelEngine,
		vllmapi.LabelGPUMemoryUtilization, vllmapi.LabelNumGPUBlocks,
	}, nil)
	m.reg.MustRegister(statsCollector{m})
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// seconds converts a simulated duration in ns to wall seconds.
func (m *metrics) seconds(ns int64) float64 { return float64(ns) / 1e9 / m.s.cfg.TimeScale }

// observeStep records one engine step's output of n tokens at t for k's
// request (engine goroutine). ITL is one observation per output batch. A
// speculative step after the first token counts one draft of K tokens, of
// which n-1 were accepted: an approximation that assumes every decode step
// drafts (vLLM skips drafting near max_model_len).
func (m *metrics) observeStep(k *sink, n int, t int64) {
	if k.firstT < 0 {
		k.firstT = t
		m.ttft.Observe(m.seconds(t - k.arrival))
	} else {
		m.itl.Observe(m.seconds(t - k.lastT))
		if m.specK > 0 && n > 0 {
			m.drafts.Inc()
			m.draftTokens.Add(float64(m.specK))
			acc := min(n-1, m.specK)
			m.accepted.Add(float64(acc))
			for i := range acc {
				m.acceptedPerPos[i].Inc()
			}
		}
	}
	k.lastT = t
}

// observeFinished records a finished request (engine goroutine).
func (m *metrics) observeFinished(k *sink, res *workload.Result) {
	switch res.Status {
	case workload.StatusCancelled:
		m.success.WithLabelValues(vllmapi.FinishAbort).Inc()
		return
	case workload.StatusRejected:
		return
	}
	reason := vllmapi.FinishStop
	if k.job.req.FinishReason == workload.FinishLength {
		reason = vllmapi.FinishLength
	}
	m.success.WithLabelValues(reason).Inc()
	m.e2e.Observe(res.E2ES / m.s.cfg.TimeScale)
	m.queue.Observe(res.QueueS / m.s.cfg.TimeScale)
}

// statsCollector exposes the engine's published snapshot.
type statsCollector struct{ m *metrics }

func (c statsCollector) Describe(ch chan<- *prometheus.Desc) {
	m := c.m
	for _, d := range []*prometheus.Desc{m.running, m.waiting, m.kvUsage, m.preemptions, m.prompt, m.generated, m.cacheConfig} {
		ch <- d
	}
}

func (c statsCollector) Collect(ch chan<- prometheus.Metric) {
	m := c.m
	st := m.s.Stats()
	model := m.s.ModelName()
	send := func(d *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string) {
		if metric, err := prometheus.NewConstMetric(d, t, v, labels...); err == nil {
			ch <- metric
		}
	}
	send(m.running, prometheus.GaugeValue, float64(st.Running), model, engineLabel)
	send(m.waiting, prometheus.GaugeValue, float64(st.Waiting), model, engineLabel)
	send(m.kvUsage, prometheus.GaugeValue, st.KVUsage, model, engineLabel)
	send(m.preemptions, prometheus.CounterValue, float64(st.Preemptions), model, engineLabel)
	send(m.prompt, prometheus.CounterValue, float64(st.PromptTokens), model, engineLabel)
	send(m.generated, prometheus.CounterValue, float64(st.GenerationTokens), model, engineLabel)
	send(m.prefixQueries, prometheus.CounterValue, float64(st.PrefixQueries), model, engineLabel)
	send(m.prefixHits, prometheus.CounterValue, float64(st.PrefixHits), model, engineLabel)
	// CacheConfig's attributes as Python prints them (str(True) is "True").
	cfg, capacity := m.s.simCfg, m.s.capacity
	prefix := "True"
	if cfg.DisablePrefixCaching {
		prefix = "False"
	}
	send(m.cacheConfig, prometheus.GaugeValue, 1,
		strconv.Itoa(capacity.BlockSize), cfg.KVCacheDtype, prefix, engineLabel,
		strconv.FormatFloat(cfg.GPUMemoryUtilization, 'g', -1, 64), strconv.Itoa(capacity.NumGPUBlocks))
}
