package loop

// Estimator gives a message's size in tokens when the model has not
// reported it.
type Estimator interface {
	Estimate(m Message) int
}

// CharEstimator estimates four characters to a token, plus a small fixed
// overhead per block. Blocks that carry an explicit Tokens size count that
// size instead of their text.
type CharEstimator struct{}

// blockOverhead is the per-block framing the estimator adds.
const blockOverhead = 3

// Estimate implements [Estimator].
func (CharEstimator) Estimate(m Message) int {
	n := 0
	for bi := range m.Blocks {
		b := &m.Blocks[bi]
		n += blockTokens(*b)
	}
	if n == 0 {
		n = 1
	}
	return n
}

func blockTokens(b Block) int {
	if b.Tokens > 0 {
		return b.Tokens
	}
	chars := len(b.Text) + len(b.Input) + len(b.Name)
	return (chars+3)/4 + blockOverhead
}

// TokenCounter counts the tokens a request with these messages would send.
type TokenCounter interface {
	Count(msgs []Message) int
}

// UsageCounter counts like the reference agent: the context size reported
// with the last assistant reply that carries usage, plus the sizes of the
// messages appended after it; with no such reply, the sum of the message
// sizes. Because it trusts the reported usage, it cannot see messages that
// were removed before the anchor: the loop subtracts what snip freed.
type UsageCounter struct{}

// Count implements [TokenCounter].
func (UsageCounter) Count(msgs []Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == RoleAssistant && msgs[i].Usage != nil {
			return msgs[i].Usage.Context() + SumTokens(msgs[i+1:])
		}
	}
	return SumTokens(msgs)
}

// SumCounter counts the sum of the messages' sizes.
type SumCounter struct{}

// Count implements [TokenCounter].
func (SumCounter) Count(msgs []Message) int { return SumTokens(msgs) }

// SumTokens is the sum of the messages' Tokens.
func SumTokens(msgs []Message) int {
	n := 0
	for i := range msgs {
		// by index: ranging over the values copies each message
		n += msgs[i].Tokens
	}
	return n
}
