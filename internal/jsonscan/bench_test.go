package jsonscan

import "testing"

// The scanner's two users, on their own inputs. The users' benchmarks
// measure it in place: workload's BenchmarkScanNative1M and
// BenchmarkScanOpenAI1M (the 1M-line log read), loadgen/vllmapi's
// BenchmarkChunkDecoder and loadgen's BenchmarkClientStream.
//
//	go test -run '^$' -bench . -benchmem ./internal/jsonscan/

// benchLogLine is a line of workload's benchmark log (native format).
const benchLogLine = `{"id":"req-0000042","arrival_s":12.345678,"prompt_tokens":1234,"think_tokens":5678,"answer_tokens":321,"mode":"medium","category":"extraction","finish_reason":"stop"}`

// benchOpenAILine is a line of its openai-usage log.
const benchOpenAILine = `{"id":"chatcmpl-0000002a","object":"chat.completion","created":1748779242,"model":"qwen3-8b","choices":[{"index":0,"finish_reason":"stop"}],"usage":{"prompt_tokens":1234,"completion_tokens":5999,"total_tokens":0,"completion_tokens_details":{"reasoning_tokens":5678}},"metadata":{"category":"math"}}`

// benchChunk is loadgen/vllmapi's benchmark chunk, a token event.
var benchChunk = []byte(`{"id":"chatcmpl-84fcf3946abda724","object":"chat.completion.chunk","created":1781964066,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"content":" Hello"},"logprobs":null,"finish_reason":null,"token_ids":null}]}`)

// BenchmarkLogLine checks a log line as the log reader's fast path does:
// every value read and validated, without unescaping.
func BenchmarkLogLine(b *testing.B) {
	for _, tc := range []struct{ name, line string }{{"native", benchLogLine}, {"openai", benchOpenAILine}} {
		b.Run(tc.name, func(b *testing.B) {
			line := []byte(tc.line)
			s := Scanner{MaxDepth: 65}
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for b.Loop() {
				s.Reset(line)
				if !s.Skip() {
					b.Fatal("rejected")
				}
			}
		})
	}
}

// BenchmarkChunk walks a chunk as the chunk decoder does: keys unescaped
// through Object, choices[0].delta.content read as a string, the rest
// skipped.
func BenchmarkChunk(b *testing.B) {
	s := Scanner{MaxDepth: EncodingJSONDepth}
	var content []byte
	b.SetBytes(int64(len(benchChunk)))
	b.ReportAllocs()
	for b.Loop() {
		s.Reset(benchChunk)
		ok := s.Object(func(key []byte) bool {
			if string(key) != "choices" {
				return s.Skip()
			}
			return s.Array(func(int) bool {
				return s.Object(func(key []byte) bool {
					if string(key) != "delta" {
						return s.Skip()
					}
					return s.Object(func(key []byte) bool {
						if string(key) != "content" {
							return s.Skip()
						}
						var ok bool
						content, ok = s.String()
						return ok
					})
				})
			})
		})
		if !ok || string(content) != " Hello" {
			b.Fatal("rejected")
		}
	}
}
