package gemini_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/fakemodel/fakeapi"
	"github.com/loopsim/loopsim/fakemodel/wire"
)

// Through the core (fakeapi's server), a script's steps reach the
// official SDK as Gemini's answers, and every request is recorded in the
// notation every API shares. It runs over 80 lines on purpose: one
// script played in order, each request's check beside the step it plays,
// then the records of them all; split, the order would be hidden.
func TestScriptOverTheServer(t *testing.T) {
	script := []fakemodel.Step{
		{Text: "reading", ToolUses: []fakemodel.ToolUse{{ID: "c1", Name: "Read", Input: `{"path":"a.go"}`}}},
		{Kind: fakemodel.RateLimited, RetryAfterMS: 2000},
		{Kind: fakemodel.PromptTooLong, Maximum: 10},
		{Kind: fakemodel.StreamError, After: 2},
		{Kind: fakemodel.Overloaded},
		{Kind: fakemodel.Truncated},
		{Kind: fakemodel.MalformedToolUse},
		{Kind: fakemodel.Empty},
		{Kind: fakemodel.ConnectionDropped, After: 1},
		{Text: "<summary>all of it</summary>"},
	}
	srv := fakeapi.NewServer(&fakemodel.Model{Script: script}, wire.Options{Models: models})
	defer srv.Close()
	c, err := genai.NewClient(t.Context(), &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL}})
	require.NoError(t, err)
	stream := func(contents []*genai.Content) (parsed, error) {
		var p parsed
		for r, err := range c.Models.GenerateContentStream(context.Background(), "gemini-test", contents, nil) {
			if err != nil {
				return p, err
			}
			p.add(r)
		}
		return p, nil
	}
	apiErr := func(err error) genai.APIError {
		var ae genai.APIError
		require.ErrorAs(t, err, &ae)
		return ae
	}

	p, err := stream(genai.Text("read a.go"))
	require.NoError(t, err)
	assert.Equal(t, "reading", p.text())
	require.NotNil(t, p.parts[len(p.parts)-1].FunctionCall)
	assert.Equal(t, "c1", p.parts[len(p.parts)-1].FunctionCall.ID)

	_, err = stream(genai.Text("again"))
	ae := apiErr(err)
	assert.Equal(t, 429, ae.Code)
	assert.Equal(t, "2s", ae.Details[0]["retryDelay"])

	_, err = c.Models.GenerateContent(t.Context(), "gemini-test", genai.Text("again"), nil)
	assert.Contains(t, apiErr(err).Message, "exceeds the maximum number of tokens allowed (10).")

	p, err = stream(genai.Text("again"))
	assert.Equal(t, 500, apiErr(err).Code)
	assert.Equal(t, "chunk 1chunk 2", p.text())

	_, err = stream(genai.Text("again"))
	assert.Equal(t, "UNAVAILABLE", apiErr(err).Status)

	p, err = stream(genai.Text("again"))
	require.NoError(t, err)
	assert.Equal(t, genai.FinishReasonMaxTokens, p.finish)

	r, err := c.Models.GenerateContent(t.Context(), "gemini-test", genai.Text("again"), nil)
	require.NoError(t, err)
	assert.Equal(t, genai.FinishReasonMalformedFunctionCall, r.Candidates[0].FinishReason)

	p, err = stream(genai.Text("again"))
	require.NoError(t, err)
	assert.Equal(t, genai.FinishReasonStop, p.finish)
	assert.Empty(t, p.parts)

	p, err = stream(genai.Text("again"))
	require.Error(t, err)
	assert.Equal(t, 1, p.responses)

	_, err = stream([]*genai.Content{genai.NewContentFromText("fix it", genai.RoleUser), genai.NewContentFromText("done", genai.RoleModel),
		genai.NewContentFromText("Generate a new <state_snapshot> based on the provided history.", genai.RoleUser)})
	require.NoError(t, err)

	_, err = c.Models.GenerateContent(t.Context(), "gemini-test", genai.Text("too much"), &genai.GenerateContentConfig{MaxOutputTokens: 100_000})
	assert.Equal(t, 400, apiErr(err).Code)

	n, err := c.Models.CountTokens(t.Context(), "gemini-test", genai.Text("not recorded"), nil)
	require.NoError(t, err)
	assert.Positive(t, n.TotalTokens)

	recs := srv.Requests()
	assert.Equal(t, []string{"M:tool", "M:429", "M:400", "M:stream_error", "M:503", "M:trunc", "M:malformed", "M:empty", "M:drop", "C:text", "M:rejected"},
		wire.Labels(recs))
	for _, rec := range recs {
		assert.Equal(t, "gemini", rec.API)
		assert.Equal(t, "gemini-test", rec.Model)
	}
	assert.True(t, recs[0].Stream)
	assert.False(t, recs[2].Stream)
}
