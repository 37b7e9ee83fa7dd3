package vllmapi

// View is the ChunkView that Decode gives of c's JSON encoding: the
// reference that the decoder is tested against, and a way for a server
// to check what a client will read from the chunks it writes.
func (c *StreamChunk) View() ChunkView {
	var v ChunkView
	v.Choices = len(c.Choices)
	if len(c.Choices) > 0 {
		ch := &c.Choices[0]
		if ch.Text != nil {
			v.Content = []byte(*ch.Text)
		}
		if d := ch.Delta; d != nil {
			v.Role = []byte(d.Role)
			if d.Content != nil {
				v.Content = []byte(*d.Content)
			}
			switch {
			case d.Reasoning != nil:
				v.Reasoning = []byte(*d.Reasoning)
			case d.ReasoningContent != nil:
				v.Reasoning = []byte(*d.ReasoningContent)
			}
			v.ToolCalls = len(d.ToolCalls)
		}
		if ch.FinishReason != nil {
			v.FinishReason = []byte(*ch.FinishReason)
		}
	}
	if u := c.Usage; u != nil {
		v.HasUsage = true
		v.Usage = UsageCounts{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
		if u.PromptTokensDetails != nil {
			v.Usage.CachedTokens = u.PromptTokensDetails.CachedTokens
		}
		if u.CompletionTokensDetails != nil {
			v.Usage.ReasoningTokens = u.CompletionTokensDetails.ReasoningTokens
			v.Usage.HasReasoningTokens = true
		}
		if u.ReasoningTokens != nil {
			v.Usage.ReasoningTokens, v.Usage.HasReasoningTokens = *u.ReasoningTokens, true
		}
	}
	if e := c.Error; e != nil {
		v.HasError = true
		v.Error = ErrorView{Message: []byte(e.Message), Type: []byte(e.Type), Code: e.Code}
	}
	return v
}

// Equal reports whether v and o say the same; a nil and an empty byte
// slice are equal.
func (v *ChunkView) Equal(o *ChunkView) bool {
	return v.Choices == o.Choices && string(v.Role) == string(o.Role) &&
		string(v.Content) == string(o.Content) && string(v.Reasoning) == string(o.Reasoning) &&
		v.ToolCalls == o.ToolCalls && string(v.FinishReason) == string(o.FinishReason) &&
		v.HasUsage == o.HasUsage && v.Usage == o.Usage && v.HasError == o.HasError &&
		string(v.Error.Message) == string(o.Error.Message) && string(v.Error.Type) == string(o.Error.Type) &&
		v.Error.Code == o.Error.Code
}
