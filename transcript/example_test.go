package transcript_test

import (
	"fmt"
	"strings"

	"github.com/loopsim/loopsim/transcript"
)

// A Claude Code log read into a session: its calls (the context each
// sent, the output, the tool calls), the user's prompts told apart from
// a line the agent injected, and the lines it could not read counted,
// not fatal.
func ExampleRead() {
	log := strings.Join([]string{
		`{"type":"user","message":{"role":"user","content":"fix the failing test"}}`,
		`{"type":"assistant","message":{"id":"m1","model":"claude-opus-4-5-20251101","content":[{"type":"tool_use","name":"Read","input":{"file_path":"a.go"}}],"usage":{"input_tokens":3,"cache_creation_input_tokens":20000,"cache_read_input_tokens":0,"output_tokens":120}}}`,
		`{"type":"user","message":{"role":"user","content":"<task-notification> <task-id>x</task-id> done</task-notification>"}}`,
		`not JSON`,
		`{"type":"assistant","message":{"id":"m2","model":"claude-opus-4-5-20251101","content":[{"type":"text","text":"Fixed."}],"usage":{"input_tokens":5,"cache_creation_input_tokens":600,"cache_read_input_tokens":20000,"output_tokens":40}}}`,
	}, "\n")
	s, err := transcript.Read(strings.NewReader(log), "session.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Format, s.Model())
	for _, c := range s.Calls() {
		fmt.Printf("call: context %d, output %d, %d tool calls\n", c.Usage.Context(), c.Usage.Output, c.Tools)
	}
	prompts := 0
	for _, e := range s.Events {
		if e.Kind == transcript.EventPrompt {
			prompts++
		}
	}
	fmt.Printf("%d prompt, %d task notification, %d malformed line\n", prompts, s.Injected[transcript.TaskNotification], s.Malformed)

	// Output:
	// claude-code claude-opus-4-5
	// call: context 20003, output 120, 1 tool calls
	// call: context 20605, output 40, 0 tool calls
	// 1 prompt, 1 task notification, 1 malformed line
}
