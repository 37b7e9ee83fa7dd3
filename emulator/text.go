package emulator

import (
	"hash/fnv"
	"strconv"
	"unicode/utf8"
)

// Synthetic output: one " word" a token, thinking and answer drawn from
// different lists so a reader can tell them apart.
var (
	thinkWords = [...]string{" so", " the", " user", " wants", " let", " me", " check", " first", " then",
		" maybe", " wait", " if", " we", " consider", " this", " case", " step", " which", " means", " hmm"}
	answerWords = [...]string{" the", " answer", " is", " here", " and", " it", " follows", " from", " that",
		" result", " so", " we", " get", " a", " clear", " value", " for", " each", " part", " done"}
)

// Inline reasoning tags (Qwen3, DeepSeek-R1) for --no-reasoning-parser.
const (
	thinkOpen  = "<think>\n"
	thinkClose = "\n</think>\n\n"
)

// wordSeed derives a request's word stream from its id and the seed.
func wordSeed(id string, seed uint64) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64() ^ seed
}

// appendWords appends n words starting at token index from.
func appendWords(b []byte, words []string, seed uint64, from, n int) []byte {
	for i := from; i < from+n; i++ {
		x := seed + uint64(i)*0x9e3779b97f4a7c15
		x ^= x >> 29
		b = append(b, words[x%uint64(len(words))]...)
	}
	return b
}

// appendJSONString appends s as a JSON string, escaping as pydantic does
// (quotes, backslashes, control characters; '<' and '>' stay raw).
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			b = append(b, c)
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
			continue
		}
		switch c {
		case '"':
			b = append(b, `\"`...)
		case '\\':
			b = append(b, `\\`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		default:
			b = append(b, `\u00`...)
			b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
		}
		i++
	}
	return append(b, '"')
}

// appendUsage appends a usage object in vLLM's field order (UsageInfo:
// prompt, total, completion).
func appendUsage(b []byte, prompt, completion int, details bool) []byte {
	b = append(b, `{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(prompt), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(prompt+completion), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(completion), 10)
	if details {
		b = append(b, `,"prompt_tokens_details":null`...)
	}
	return append(b, '}')
}
