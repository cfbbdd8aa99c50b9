package wire

// FaultKind is the kind of fault the server played for the request: the
// failure the model played ([Record.Fault]: overloaded, connection,
// prompt_too_long, ...; request_too_large for a body over the server's
// limit), a reply's injected shape (truncated, empty,
// malformed_tool_use) or a user's abort; empty for a plain answer and
// for what the agent or the harness caused (a refused request, a
// harness fault, a client gone).
func (r Record) FaultKind() string {
	if r.Fault != "" {
		return string(r.Fault)
	}
	switch r.Answer {
	case "trunc":
		return "truncated"
	case "empty":
		return "empty"
	case "malformed":
		return "malformed_tool_use"
	case "abort":
		return "abort"
	}
	return ""
}
