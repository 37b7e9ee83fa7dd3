package workload

// The openai-usage format: one OpenAI-style object a line, as gateways and
// proxies log them: a Chat Completions response (or its usage record) or a
// Responses API response. What it takes:
//
//	arrival      arrival_s (seconds from the start), else timestamp (RFC 3339
//	             or unix seconds), created or created_at (unix seconds)
//	prompt       usage.prompt_tokens, or usage.input_tokens (Responses API)
//	generated    usage.completion_tokens, or usage.output_tokens
//	think        usage.completion_tokens_details.reasoning_tokens, or
//	             usage.output_tokens_details.reasoning_tokens (absent: 0)
//	answer       generated − think (think above generated is an error)
//	id           id
//	finish       choices[0].finish_reason: stop, tool_calls and
//	             function_call are stop (the model ended its turn), length
//	             is length, anything else unknown; for the Responses API,
//	             incomplete_details.reason max_output_tokens is length and
//	             status completed is stop
//	mode         metadata.mode or mode; else reasoning.effort (Responses
//	             API) or reasoning_effort (a logged request), where minimal
//	             and none read as low
//	category     metadata.category or category
//
// Keys match regardless of case, as everywhere in JSON input.

// openaiPaths are the paths the format reads, in slot order.
var openaiPaths = []string{
	oaID:                  "id",
	oaArrivalS:            "arrival_s",
	oaTimestamp:           "timestamp",
	oaCreated:             "created",
	oaCreatedAt:           "created_at",
	oaPromptTokens:        "usage.prompt_tokens",
	oaInputTokens:         "usage.input_tokens",
	oaCompletionTokens:    "usage.completion_tokens",
	oaOutputTokens:        "usage.output_tokens",
	oaCompletionReasoning: "usage.completion_tokens_details.reasoning_tokens",
	oaOutputReasoning:     "usage.output_tokens_details.reasoning_tokens",
	oaFinishReason:        "choices[0].finish_reason",
	oaIncompleteReason:    "incomplete_details.reason",
	oaStatus:              "status",
	oaMetadataMode:        "metadata.mode",
	oaMode:                "mode",
	oaReasoningEffort:     "reasoning.effort",
	oaRequestEffort:       "reasoning_effort",
	oaMetadataCategory:    "metadata.category",
	oaCategory:            "category",
}

const (
	oaID = iota
	oaArrivalS
	oaTimestamp
	oaCreated
	oaCreatedAt
	oaPromptTokens
	oaInputTokens
	oaCompletionTokens
	oaOutputTokens
	oaCompletionReasoning
	oaOutputReasoning
	oaFinishReason
	oaIncompleteReason
	oaStatus
	oaMetadataMode
	oaMode
	oaReasoningEffort
	oaRequestEffort
	oaMetadataCategory
	oaCategory
)

// openaiSources are the fields read as they are, from the first slot
// present.
var openaiSources = []fieldSource{
	{fID, []int{oaID}},
	{fArrivalS, []int{oaArrivalS}},
	{fTimestamp, []int{oaTimestamp, oaCreated, oaCreatedAt}},
	{fPromptTokens, []int{oaPromptTokens, oaInputTokens}},
	{fOutputTokens, []int{oaCompletionTokens, oaOutputTokens}},
	{fThinkTokens, []int{oaCompletionReasoning, oaOutputReasoning}},
	{fCategory, []int{oaMetadataCategory, oaCategory}},
}

var (
	textStop   = []byte(FinishStop)
	textLength = []byte(FinishLength)
	textLow    = []byte(ModeLow)
)

func newOpenAIDecoder() *jsonDecoder {
	s, _, err := newJSONSchema(openaiPaths)
	if err != nil {
		panic("workload: openai-usage schema: " + err.Error()) // a programming error
	}
	d := newJSONDecoder(FormatOpenAI, s, fillOpenAI)
	d.sources = openaiSources
	return d
}

func fillOpenAI(d *jsonDecoder, vals [][]byte, raw *rawRecord) *fieldError {
	if err := fillSources(d, vals, raw); err != nil {
		return err
	}
	switch {
	case !raw.present(fPromptTokens) && !raw.present(fOutputTokens):
		return &fieldError{field: "usage", msg: "missing (not an openai usage record?)", reason: "missing"}
	case !raw.present(fOutputTokens):
		return badValue(raw, fOutputTokens, "missing", "")
	}

	// The mode as given, else the reasoning effort in OpenAI's words.
	for _, slot := range []int{oaMetadataMode, oaMode, oaReasoningEffort, oaRequestEffort} {
		text, err := jsonText(vals[slot], fMode, openaiPaths[slot])
		if err != nil {
			return err
		}
		if len(text) == 0 {
			continue
		}
		if (slot == oaReasoningEffort || slot == oaRequestEffort) && (string(text) == "minimal" || string(text) == "none") {
			text = textLow
		}
		raw.text[fMode], raw.name[fMode] = text, openaiPaths[slot]
		break
	}

	finish, err := jsonText(vals[oaFinishReason], fFinishReason, openaiPaths[oaFinishReason])
	if err != nil {
		return err
	}
	switch string(finish) {
	case "stop", "tool_calls", "function_call":
		raw.text[fFinishReason] = textStop
	case "length":
		raw.text[fFinishReason] = textLength
	case "":
		if string(vals[oaIncompleteReason]) == `"max_output_tokens"` {
			raw.text[fFinishReason] = textLength
		} else if string(vals[oaStatus]) == `"completed"` {
			raw.text[fFinishReason] = textStop
		}
	}
	return nil
}
