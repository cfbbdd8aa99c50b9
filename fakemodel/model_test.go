package fakemodel

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/loopsim/loopsim/loop"
)

func TestReply(t *testing.T) {
	m := &Model{Script: []Step{
		{Thinking: "hmm", Text: "I'll read", ToolUses: []ToolUse{{Name: "Read", Input: `{"p":1}`}, {Name: "Grep"}}},
		{Text: "done", OutputTokens: 42, InputTokens: 7},
	}}
	blocks, resp, err := stream(t, m, req(100))
	if err != nil {
		t.Fatal(err)
	}
	want := []loop.Block{
		{Type: loop.BlockThinking, Text: "hmm"},
		{Type: loop.BlockText, Text: "I'll read"},
		{Type: loop.BlockToolUse, ID: "toolu_1_1", Name: "Read", Input: `{"p":1}`},
		{Type: loop.BlockToolUse, ID: "toolu_1_2", Name: "Grep", Input: "{}"},
	}
	if !reflect.DeepEqual(blocks, want) {
		t.Errorf("blocks = %+v\nwant %+v", blocks, want)
	}
	if resp.StopReason != loop.StopToolUse || resp.Usage.InputTokens != 100 || resp.Usage.OutputTokens <= 0 {
		t.Errorf("resp = %+v, want tool_use with input 100 and an estimated output", resp)
	}
	blocks, resp, err = stream(t, m, req(100))
	if err != nil || len(blocks) != 1 || resp != (loop.Response{StopReason: loop.StopEndTurn, Usage: loop.Usage{InputTokens: 7, OutputTokens: 42}}) {
		t.Errorf("second reply = %+v, %+v, %v", blocks, resp, err)
	}
	if !m.Done() {
		t.Error("Done() = false after every step")
	}
}

func TestRepeatAndUniqueIDs(t *testing.T) {
	m := &Model{Script: []Step{
		{ToolUses: []ToolUse{{Name: "Read"}}, Repeat: 3},
		{Text: "again", Repeat: Forever},
	}}
	seen := map[string]bool{}
	for i := range 3 {
		blocks, resp, err := stream(t, m, req(10))
		if err != nil || resp.StopReason != loop.StopToolUse {
			t.Fatalf("request %d: %v, %v", i+1, resp, err)
		}
		if seen[blocks[0].ID] {
			t.Fatalf("duplicate id %q", blocks[0].ID)
		}
		seen[blocks[0].ID] = true
	}
	if m.Done() {
		t.Error("Done() before the forever step was reached")
	}
	for range 50 {
		if blocks, _, err := stream(t, m, req(10)); err != nil || blocks[0].Text != "again" {
			t.Fatalf("forever step: %v, %v", blocks, err)
		}
	}
	if !m.Done() {
		t.Error("Done() = false at a forever step")
	}
}

func TestExhausted(t *testing.T) {
	m := &Model{Script: []Step{{Text: "only"}}}
	stream(t, m, req(1))
	r := req(1)
	r.Purpose = loop.PurposeCompact
	_, _, err := stream(t, m, r)
	var ex *ExhaustedError
	if !errors.As(err, &ex) || *ex != (ExhaustedError{Request: 2, Purpose: loop.PurposeCompact, ScriptLen: 1}) {
		t.Fatalf("err = %#v, want an ExhaustedError for request 2", err)
	}
	var re *loop.RequestError
	if errors.As(err, &re) {
		t.Error("an exhausted script must not look like an API error")
	}
	if !strings.Contains(err.Error(), "request 2 (compact)") {
		t.Errorf("message %q does not name the request", err)
	}
	// an empty script
	if _, _, err := stream(t, &Model{}, req(1)); !errors.As(err, &ex) {
		t.Errorf("empty script: err = %v", err)
	}
}

func TestInvalidStep(t *testing.T) {
	m := &Model{Script: []Step{{Text: "ok"}, {ToolUses: []ToolUse{{ID: "x"}}}}}
	stream(t, m, req(1))
	_, _, err := stream(t, m, req(1))
	var se *StepError
	if !errors.As(err, &se) || se.Step != 1 || !strings.Contains(err.Error(), "script step 1: tool_uses[0] has no name") {
		t.Fatalf("err = %v, want a StepError for step 1", err)
	}
}

func TestRecordsRequests(t *testing.T) {
	m := &Model{Script: []Step{{Text: "a", Repeat: 2}}, KeepMessages: true}
	r := req(5)
	stream(t, m, r)
	r.Messages[0] = loop.UserText("changed") // the loop would not, but the record is a copy
	stream(t, m, req(6))
	if len(m.Requests) != 2 || m.Requests[0].Messages[0].Text() != "hi" || m.Requests[1].InputTokens != 6 {
		t.Fatalf("Requests = %+v", m.Requests)
	}
}

func TestFaults(t *testing.T) {
	for _, tc := range []struct {
		step   Step
		kind   loop.ErrorKind
		status int
	}{
		{Step{Kind: PromptTooLong}, loop.ErrPromptTooLong, 400},
		{Step{Kind: RequestTooLarge}, loop.ErrRequestTooLarge, 413},
		{Step{Kind: MediaTooLarge}, loop.ErrMediaTooLarge, 400},
		{Step{Kind: ImageSize}, loop.ErrImageSize, 0},
		{Step{Kind: Overloaded}, loop.ErrOverloaded, 529},
		{Step{Kind: FallbackTriggered}, loop.ErrFallbackTriggered, 529},
		{Step{Kind: RateLimited, RetryAfterMS: 1500}, loop.ErrRateLimited, 429},
		{Step{Kind: ServerError}, loop.ErrServer, 500},
		{Step{Kind: ServerError, Status: 503}, loop.ErrServer, 503},
		{Step{Kind: ConnectionDropped}, loop.ErrConnection, 0},
		{Step{Kind: InvalidRequest, Message: "bad shape"}, loop.ErrInvalidRequest, 400},
		{Step{Kind: OtherStatus, Status: 404}, loop.ErrOther, 404},
		{Step{Kind: StreamError}, loop.ErrStream, 0},
	} {
		t.Run(string(tc.step.Kind), func(t *testing.T) {
			m := &Model{Window: 1000, Script: []Step{tc.step}}
			blocks, _, err := stream(t, m, req(1200))
			var re *loop.RequestError
			if !errors.As(err, &re) || re.Kind != tc.kind || re.Status != tc.status || re.Message == "" {
				t.Fatalf("err = %#v, want kind %s status %d", err, tc.kind, tc.status)
			}
			if len(blocks) != 0 {
				t.Errorf("yielded %v before the fault", blocks)
			}
			if re.RetryAfterMS != tc.step.RetryAfterMS {
				t.Errorf("retry-after = %d, want %d", re.RetryAfterMS, tc.step.RetryAfterMS)
			}
			if tc.step.Message != "" && re.Message != tc.step.Message {
				t.Errorf("message = %q, want %q", re.Message, tc.step.Message)
			}
		})
	}
}

func TestPromptTooLongMessage(t *testing.T) {
	for _, tc := range []struct {
		window int
		step   Step
		input  int
		want   string
	}{
		{200000, Step{Kind: PromptTooLong}, 210000, "prompt is too long: 210000 tokens > 200000 maximum"},
		{200000, Step{Kind: PromptTooLong, Maximum: 100000}, 150000, "prompt is too long: 150000 tokens > 100000 maximum"},
		{200000, Step{Kind: PromptTooLong, InputTokens: 250000}, 5, "prompt is too long: 250000 tokens > 200000 maximum"},
		{0, Step{Kind: PromptTooLong}, 500, "prompt is too long: 500 tokens > 499 maximum"},
	} {
		m := &Model{Window: tc.window, Script: []Step{tc.step}}
		_, _, err := stream(t, m, req(tc.input))
		var re *loop.RequestError
		if !errors.As(err, &re) || re.Message != tc.want {
			t.Errorf("%+v: err = %v, want %q", tc.step, err, tc.want)
		}
	}
}

func TestTruncated(t *testing.T) {
	m := &Model{Script: []Step{
		{Kind: Truncated},
		{Kind: Truncated, Text: "writing", ToolUses: []ToolUse{{Name: "Write", Input: `{"path":"a.go","content":"package a"}`}}},
	}}
	blocks, resp, err := stream(t, m, req(10))
	if err != nil || len(blocks) != 1 || resp.StopReason != loop.StopMaxTokens || resp.Usage.OutputTokens != 8000 {
		t.Fatalf("plain truncation: %+v, %+v, %v", blocks, resp, err)
	}
	blocks, resp, err = stream(t, m, req(10))
	if err != nil || len(blocks) != 2 || resp.StopReason != loop.StopMaxTokens {
		t.Fatalf("truncated tool use: %+v, %+v, %v", blocks, resp, err)
	}
	if in := blocks[1].Input; in != `{"path":"a.go","co` {
		t.Errorf("cut input = %q", in)
	}
}

func TestEmptyAndMalformed(t *testing.T) {
	m := &Model{Script: []Step{{Kind: Empty}, {Kind: MalformedToolUse}}}
	blocks, resp, err := stream(t, m, req(10))
	if err != nil || len(blocks) != 0 || resp.StopReason != loop.StopEndTurn || resp.Usage.OutputTokens != 0 {
		t.Errorf("empty: %+v, %+v, %v", blocks, resp, err)
	}
	blocks, resp, err = stream(t, m, req(10))
	if err != nil || resp.StopReason != loop.StopToolUse {
		t.Fatalf("malformed: %+v, %v", resp, err)
	}
	for _, b := range blocks {
		if b.Type == loop.BlockToolUse {
			t.Errorf("malformed tool use yielded a tool_use: %+v", b)
		}
	}
}

func TestStreamErrorAfterK(t *testing.T) {
	m := &Model{Script: []Step{{Kind: StreamError, Text: "part", After: 3}, {Kind: StreamError, Text: "a", ToolUses: []ToolUse{{Name: "R"}}, After: 1}}}
	blocks, _, err := stream(t, m, req(10))
	var re *loop.RequestError
	if !errors.As(err, &re) || re.Kind != loop.ErrStream || len(blocks) != 3 || blocks[0].Text != "part" || blocks[2].Text != "chunk 3" {
		t.Fatalf("blocks %+v, err %v", blocks, err)
	}
	blocks, _, _ = stream(t, m, req(10))
	if len(blocks) != 1 || blocks[0].Text != "a" {
		t.Errorf("after 1: %+v", blocks)
	}
}

func TestAbortAfterK(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := &Model{Cancel: cancel, Script: []Step{{Kind: Abort, Text: "one", ToolUses: []ToolUse{{Name: "Read"}}, After: 2}}}
	blocks, _, err := streamCtx(t, ctx, m, req(10))
	if !errors.Is(err, context.Canceled) || len(blocks) != 2 || ctx.Err() == nil {
		t.Fatalf("blocks %+v, err %v, ctx %v", blocks, err, ctx.Err())
	}

	// without Cancel, or with one that cancels something else
	for _, c := range []context.CancelFunc{nil, func() {}} {
		m := &Model{Cancel: c, Script: []Step{{Kind: Abort}}}
		_, _, err := stream(t, m, req(10))
		var se *StepError
		if !errors.As(err, &se) {
			t.Errorf("Cancel %v: err = %v, want a StepError", c != nil, err)
		}
	}
}

func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := &Model{Script: []Step{{Text: "x"}}}
	if _, _, err := streamCtx(t, ctx, m, req(1)); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if len(m.Requests) != 1 || m.Done() {
		t.Errorf("a cancelled request is recorded (%d) but consumes no step (done %v)", len(m.Requests), m.Done())
	}
	// cancelled mid-stream: no more blocks
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	m = &Model{Script: []Step{{Thinking: "a", Text: "b", ToolUses: []ToolUse{{Name: "c"}}}}}
	n := 0
	_, err := m.Stream(ctx, req(1), func(loop.Block) { n++; cancel() })
	if !errors.Is(err, context.Canceled) || n != 1 {
		t.Errorf("cancelled mid-stream: %d blocks, err %v", n, err)
	}
}

func TestBranches(t *testing.T) {
	m := &Model{Window: 1000, Script: []Step{{
		Repeat: Forever,
		If:     MustCondition("purpose == compact"),
		Then:   &Step{Text: "<summary>s</summary>"},
		Else: &Step{
			If:   MustCondition("input_tokens > window"),
			Then: &Step{Kind: PromptTooLong},
			Else: &Step{If: MustCondition("max_tokens >= 64000"), Then: &Step{Text: "full"}, Else: &Step{Kind: Truncated}},
		},
	}}}
	compact := req(5000)
	compact.Purpose = loop.PurposeCompact
	big := req(100)
	big.MaxTokens = 64000
	for _, tc := range []struct {
		r    loop.Request
		want string
	}{
		{compact, "text <summary>s</summary>"},
		{req(1001), "error prompt_too_long"},
		{req(100), "truncated"},
		{big, "text full"},
	} {
		blocks, resp, err := stream(t, m, tc.r)
		var got string
		var re *loop.RequestError
		switch {
		case errors.As(err, &re):
			got = "error " + string(re.Kind)
		case err != nil:
			got = err.Error()
		case resp.StopReason == loop.StopMaxTokens:
			got = "truncated"
		default:
			got = "text " + blocks[0].Text
		}
		if got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.r, got, tc.want)
		}
	}
	// window unset: the branch is a step error
	m = &Model{Script: []Step{{If: MustCondition("input_tokens > window"), Then: &Step{Text: "a"}, Else: &Step{Text: "b"}}}}
	var se *StepError
	if _, _, err := stream(t, m, req(1)); !errors.As(err, &se) || !strings.Contains(err.Error(), "Window") {
		t.Errorf("err = %v, want a StepError about the window", err)
	}
}
