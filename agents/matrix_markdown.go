package agents

import (
	"fmt"
	"io"
	"strings"

	"github.com/loopsim/loopsim/properties/wirecheck"
)

// WriteMarkdown writes the matrix as a Markdown table, scenario by
// agent, with a header naming the agents and their versions and a key
// to the rules; title heads it.
func (m *Matrix) WriteMarkdown(w io.Writer, title string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", title)
	b.WriteString("Each cell: the request sequence the fake server saw (`M:` a main request, `C:` a compaction, then its answer; `×n` n in a row), the agent's exit status and final event, the number of requests, and the seconds it ran. ")
	fmt.Fprintf(&b, "A cell is limited to %.0f s; **timeout** means the agent was killed then. ", m.Timeout)
	b.WriteString("A rule the agent broke is in bold (see the key below).\n\n")
	b.WriteString("| agent | package | version | API |\n|---|---|---|---|\n")
	for _, a := range m.Agents {
		version := a.Version
		if a.Absent != "" {
			version += " (absent: not run)"
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", a.Name, a.Package, version, a.API)
	}
	b.WriteString("\n| scenario |")
	var present []string
	for _, a := range m.Agents {
		if a.Absent == "" {
			present = append(present, a.Name)
			fmt.Fprintf(&b, " %s |", a.Name)
		}
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(present)) + "\n")
	for _, s := range m.Scenarios {
		fmt.Fprintf(&b, "| `%s` |", s)
		for _, a := range present {
			c, ok := m.cell(s, a)
			if !ok || (c.Requests == nil && c.Error == "" && !c.TimedOut) {
				b.WriteString(" not run |")
				continue
			}
			fmt.Fprintf(&b, " %s |", cellText(c))
		}
		b.WriteString("\n")
	}
	writeRules(&b, m.JudgedBy)
	fmt.Fprintf(&b, "\nThe run took %.0f s.\n", m.Seconds)
	_, err := io.WriteString(w, b.String())
	return err
}

// cellText is one cell of the table.
func cellText(c Cell) string {
	var parts []string
	if len(c.Requests) > 0 {
		parts = append(parts, "`"+Sequence(c.Requests)+"`")
	}
	end := fmt.Sprintf("exit %d", c.Exit)
	if c.TimedOut {
		end = "**timeout**"
	}
	if c.FinalEvent != "" {
		end += ", " + strings.NewReplacer("|", "/", "`", "'").Replace(c.FinalEvent)
	}
	parts = append(parts, end, fmt.Sprintf("%d req, %.1f s", len(c.Requests), c.Seconds))
	if c.Error != "" {
		parts = append(parts, "error: "+strings.ReplaceAll(c.Error, "|", "/"))
	}
	for _, r := range c.Broken {
		parts = append(parts, "**"+r+"**")
	}
	return strings.Join(parts, "<br>")
}

// FormerRules are the rules a matrix was judged by before it judged by
// the wire invariants (issue 18), each with when it was broken: the key
// of a matrix whose JSON predates [Matrix.JudgedBy].
var FormerRules = [][2]string{
	{"retries without bound", "more than 20 requests answered by a failure in one run"},
	{"exit 0 after the session failed", "exit status 0 though no request got a complete reply"},
	{"compacts in a loop", "more than 3 compaction requests in one run"},
	{"ignores retry-after", "a request sooner after a 429 than its retry-after, on the server's clock"},
	{"hangs instead of exiting", "killed at the time limit after no request for its last half"},
}

// writeRules writes the key to the rules the cells were judged by.
func writeRules(b *strings.Builder, judgedBy string) {
	if judgedBy == "" {
		b.WriteString("\nRules (the matrix's former rules, which judged this run):\n\n")
		for _, r := range FormerRules {
			fmt.Fprintf(b, "- **%s**: %s.\n", r[0], r[1])
		}
		return
	}
	fmt.Fprintf(b, "\nRules: the wire invariants of `simulate check-agent` (docs/check-agent.md), under the matrix's limits: more than %d failed requests in a row break bounded-retries, more than %d compaction requests in a row without progress (at most one main reply since the one before each) bounded-compaction, a request more than %s sooner than a retry-after retry-after-honoured, a cell killed at its time limit session-ends.\n\n",
		StormFailures, LoopCompactions, RetryAfterSlack)
	for _, name := range wirecheck.InvariantNames() {
		fmt.Fprintf(b, "- **%s**: %s\n", name, wirecheck.Rule(name))
	}
	b.WriteString("\nand the matrix-only rules, which no invariant says:\n\n")
	fmt.Fprintf(b, "- **%s**: more than %d requests answered by a failure in one run, in a row or not.\n", RuleRetriesWithoutBound, StormFailures)
	fmt.Fprintf(b, "- **%s**: killed at the time limit after no request for its last half.\n", RuleHangsAfterFailure)
}
