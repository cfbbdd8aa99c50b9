// Command agent is a small agent loop over the Messages API, for testing
// `simulate agent`: it calls ANTHROPIC_BASE_URL, runs a pretend tool,
// retries overloads, resumes truncated replies, compacts on prompt too
// long, and prints a stream-json style result line. -mode makes it
// misbehave: hang (never calls, never exits), silent (exits without
// calling), unpaired (drops a tool_result), spawn (leaves a child
// process running; prints "child PID").
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

type message struct {
	Role    string  `json:"role"`
	Content []block `json:"content"`
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   string          `json:"content,omitempty"`
}

type reply struct {
	blocks []block
	stop   string
}

// apiError is an answer that is not a reply.
type apiError struct {
	status int    // 0: the connection failed or the stream broke
	msg    string // the error body or event
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s", e.status, e.msg) }

var (
	base      = os.Getenv("ANTHROPIC_BASE_URL")
	model     = flag.String("model", "claude-sonnet-5-5", "model")
	maxTokens = flag.Int("max-tokens", 128000, "max_tokens")
	mode      = flag.String("mode", "normal", "normal, hang, silent, unpaired, spawn")
	requests  = flag.Int("requests", 50, "give up after this many requests")
)

func result(subtype string, code int) {
	fmt.Printf(`{"type":"result","subtype":%q}`+"\n", subtype)
	os.Exit(code)
}

func main() {
	flag.Parse()
	switch *mode {
	case "hang":
		time.Sleep(time.Hour)
	case "silent":
		fmt.Println("hello, I call nobody")
		return
	case "spawn":
		child := exec.Command("sleep", "300")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		fmt.Printf("child %d\n", child.Process.Pid)
	}
	history := []message{{Role: "user", Content: []block{{Type: "text", Text: "Fix the build."}}}}
	recoveries, failures := 0, 0
	stream := true
	for range *requests {
		r, err := send(history, stream)
		if err != nil {
			e := err.(*apiError)
			switch {
			case e.status == 400 && strings.Contains(e.msg, "prompt is too long"):
				history = compact(history)
				continue
			case e.status == 0 || e.status == 429 || e.status >= 500:
				failures++
				if failures > 5 {
					result("error_during_execution", 1)
				}
				stream = e.status != 0 || failures < 2 // a broken stream twice: try without streaming
				time.Sleep(10 * time.Millisecond)
				continue
			}
			fmt.Fprintln(os.Stderr, "request failed:", e)
			result("error_during_execution", 1)
		}
		failures, stream = 0, true
		history = append(history, message{Role: "assistant", Content: r.blocks})
		var uses []block
		for _, b := range r.blocks {
			if b.Type == "tool_use" {
				uses = append(uses, b)
			}
		}
		switch {
		case len(uses) > 0:
			results := message{Role: "user"}
			for _, u := range uses {
				results.Content = append(results.Content, block{Type: "tool_result", ToolUseID: u.ID, Content: "ok"})
			}
			if *mode == "unpaired" {
				results.Content = []block{{Type: "text", Text: "never mind the tool"}}
			}
			history = append(history, results)
		case r.stop == "max_tokens" && recoveries < 3:
			recoveries++
			history = append(history, message{Role: "user", Content: []block{{Type: "text", Text: "Output limit hit. Resume directly."}}})
		default:
			result("success", 0)
		}
	}
	result("error_max_turns", 1)
}

// compact asks for a summary and starts over from it.
func compact(history []message) []message {
	ask := append(append([]message(nil), history...), message{Role: "user",
		Content: []block{{Type: "text", Text: "Summarise the conversation between <summary> and </summary>."}}})
	r, err := send(ask, false)
	if err != nil {
		fmt.Fprintln(os.Stderr, "compaction failed:", err)
		result("error_during_execution", 1)
	}
	text := ""
	for _, b := range r.blocks {
		text += b.Text
	}
	text = strings.NewReplacer("<summary>", "", "</summary>", "").Replace(text) // as the released agent rewrites it
	return []message{{Role: "user", Content: []block{{Type: "text", Text: "Summary: " + text}}}}
}

func send(history []message, stream bool) (reply, error) {
	body, _ := json.Marshal(map[string]any{"model": *model, "max_tokens": *maxTokens, "stream": stream,
		"system": "You are a test agent.", "messages": history,
		"tools": []any{map[string]any{"name": "Read", "input_schema": map[string]any{"type": "object"}}}})
	resp, err := http.Post(base+"/v1/messages", "application/json", bytes.NewReader(body))
	if err != nil {
		return reply{}, &apiError{msg: err.Error()}
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		if ms, err := strconv.Atoi(resp.Header.Get("retry-after-ms")); err == nil {
			time.Sleep(time.Duration(min(ms, 50)) * time.Millisecond)
		}
		return reply{}, &apiError{status: resp.StatusCode, msg: string(b)}
	}
	if !stream {
		var m struct {
			Content    []block `json:"content"`
			StopReason string  `json:"stop_reason"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			return reply{}, &apiError{msg: err.Error()}
		}
		return reply{blocks: m.Content, stop: m.StopReason}, nil
	}
	return readStream(resp.Body)
}

func readStream(r io.Reader) (reply, error) {
	var out reply
	var inputs []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	done := false
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type         string `json:"type"`
			Index        int    `json:"index"`
			ContentBlock block  `json:"content_block"`
			Delta        struct {
				Type        string `json:"type"`
				Text        string `json:"text"`
				PartialJSON string `json:"partial_json"`
				StopReason  string `json:"stop_reason"`
			} `json:"delta"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			return reply{}, &apiError{msg: err.Error()}
		}
		switch ev.Type {
		case "content_block_start":
			b := ev.ContentBlock
			b.Input = nil
			if b.Type == "thinking" {
				b.Type = "text" // the test agent keeps no thinking
			}
			out.blocks = append(out.blocks, b)
			inputs = append(inputs, "")
		case "content_block_delta":
			switch ev.Delta.Type {
			case "text_delta":
				out.blocks[ev.Index].Text += ev.Delta.Text
			case "input_json_delta":
				inputs[ev.Index] += ev.Delta.PartialJSON
			}
		case "message_delta":
			out.stop = ev.Delta.StopReason
		case "message_stop":
			done = true
		case "error":
			return reply{}, &apiError{msg: line}
		}
	}
	if err := sc.Err(); err != nil || !done {
		return reply{}, &apiError{msg: fmt.Sprintf("stream broken: %v", err)}
	}
	kept := out.blocks[:0]
	for i, b := range out.blocks {
		if b.Type == "tool_use" {
			b.Input = json.RawMessage("{}")
			if json.Valid([]byte(inputs[i])) {
				b.Input = json.RawMessage(inputs[i])
			}
		}
		if b.Type != "text" || b.Text != "" {
			kept = append(kept, b)
		}
	}
	out.blocks = kept
	return out, nil
}
