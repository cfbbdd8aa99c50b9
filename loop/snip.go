package loop

// SnipInput is what snip sees.
type SnipInput struct {
	// Messages are the messages after the last compact boundary.
	Messages []Message
	// Tokens is their count.
	Tokens int
	// Threshold: snip acts at or over it and frees enough to get under it.
	Threshold int
	// KeepRecent is how many of the newest messages are never dropped.
	KeepRecent int
}

// SnipResult is what snip did.
type SnipResult struct {
	// Messages is the snipped list.
	Messages []Message
	// TokensFreed is what the token count cannot see was removed.
	TokensFreed int
	// Removed are the IDs of the dropped messages, oldest first.
	Removed []string
}

// Snipper is the snip seam: drop old history past a threshold.
type Snipper interface {
	Snip(in SnipInput) SnipResult
}

// OldestSnipper drops whole exchanges from the front (so no tool_use loses
// its tool_result) until the count is under the threshold, never touching
// the newest KeepRecent messages.
type OldestSnipper struct{}

// Snip implements [Snipper].
func (OldestSnipper) Snip(in SnipInput) SnipResult {
	res := SnipResult{Messages: in.Messages}
	if in.Tokens < in.Threshold {
		return res
	}
	starts := Exchanges(in.Messages)
	if len(starts) < 2 {
		return res
	}
	limit := len(in.Messages) - in.KeepRecent
	cut := 0
	for _, s := range starts[1:] {
		if s > limit || in.Tokens-res.TokensFreed < in.Threshold {
			break
		}
		for _, m := range in.Messages[cut:s] {
			res.TokensFreed += m.Tokens
			res.Removed = append(res.Removed, m.ID)
		}
		cut = s
	}
	res.Messages = in.Messages[cut:]
	return res
}
