package main

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// examplesDir holds the ready examples of running shards on an engine.
var examplesDir = filepath.Join("..", "..", "examples", "sharding")

// planOf parses a simulate command line as simulate does and returns
// its plan.
func planOf(t *testing.T, args []string) *simPlan {
	t.Helper()
	fs, o := simFlags(io.Discard)
	require.NoError(t, fs.Parse(args), "flags %q", args)
	require.Zero(t, fs.NArg(), "arguments after the flags: %q", fs.Args())
	p, err := o.plan()
	require.NoError(t, err, "flags %q", args)
	return p
}

// TestKubernetesIndexedJobExample: the Job is a batch/v1 Indexed Job
// whose completions and parallelism are the shard count, and whose pods'
// command line, with JOB_COMPLETION_INDEX set as the Job controller sets
// it, is shard i of n for every completion index i.
func TestKubernetesIndexedJobExample(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(examplesDir, "kubernetes-indexed-job.yaml"))
	require.NoError(t, err)
	var job struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   struct {
			Name string `yaml:"name"`
		} `yaml:"metadata"`
		Spec struct {
			CompletionMode       string `yaml:"completionMode"`
			Completions          *int   `yaml:"completions"`
			Parallelism          *int   `yaml:"parallelism"`
			BackoffLimitPerIndex *int   `yaml:"backoffLimitPerIndex"`
			Template             struct {
				Spec struct {
					RestartPolicy string `yaml:"restartPolicy"`
					Containers    []struct {
						Name    string   `yaml:"name"`
						Image   string   `yaml:"image"`
						Command []string `yaml:"command"`
						Args    []string `yaml:"args"`
					} `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	require.NoError(t, yaml.Unmarshal(b, &job))
	assert.Equal(t, "batch/v1", job.APIVersion)
	assert.Equal(t, "Job", job.Kind)
	assert.NotEmpty(t, job.Metadata.Name)
	assert.Equal(t, "Indexed", job.Spec.CompletionMode)
	require.NotNil(t, job.Spec.Completions)
	require.NotNil(t, job.Spec.Parallelism)
	if job.Spec.BackoffLimitPerIndex != nil {
		assert.Equal(t, "Never", job.Spec.Template.Spec.RestartPolicy, "backoffLimitPerIndex needs restartPolicy Never")
	}
	assert.Contains(t, []string{"Never", "OnFailure"}, job.Spec.Template.Spec.RestartPolicy)
	require.Len(t, job.Spec.Template.Spec.Containers, 1)
	c := job.Spec.Template.Spec.Containers[0]
	assert.NotEmpty(t, c.Image)
	require.Equal(t, []string{"simulate"}, c.Command)
	n := *job.Spec.Completions
	assert.Equal(t, n, *job.Spec.Parallelism, "parallelism")
	for i := range n {
		t.Setenv("JOB_COMPLETION_INDEX", strconv.Itoa(i))
		p := planOf(t, c.Args)
		assert.Equal(t, strconv.Itoa(i)+"/"+strconv.Itoa(n), p.shard.String(), "completion index %d", i)
	}
}

// TestGitHubActionsMatrixExample: the matrix lists shards 0 to n-1 for
// the n its command line gives, each job's command line (the matrix
// value put in) is its shard, and the merge job waits for them and runs
// simulate merge on their artifacts.
func TestGitHubActionsMatrixExample(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(examplesDir, "github-actions-matrix.yml"))
	require.NoError(t, err)
	type step struct {
		Name string            `yaml:"name"`
		Uses string            `yaml:"uses"`
		Run  string            `yaml:"run"`
		With map[string]string `yaml:"with"`
	}
	var wf struct {
		Name string         `yaml:"name"`
		On   map[string]any `yaml:"on"`
		Jobs map[string]struct {
			RunsOn   string `yaml:"runs-on"`
			Needs    string `yaml:"needs"`
			Strategy struct {
				FailFast *bool `yaml:"fail-fast"`
				Matrix   struct {
					Shard []int `yaml:"shard"`
				} `yaml:"matrix"`
			} `yaml:"strategy"`
			Steps []step `yaml:"steps"`
		} `yaml:"jobs"`
	}
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	require.NoError(t, dec.Decode(&wf))
	require.NotEmpty(t, wf.On)
	shard, ok := wf.Jobs["shard"]
	require.True(t, ok, "a job named shard")
	merge, ok := wf.Jobs["merge"]
	require.True(t, ok, "a job named merge")
	assert.Equal(t, "shard", merge.Needs)
	require.NotNil(t, shard.Strategy.FailFast)
	assert.False(t, *shard.Strategy.FailFast, "one failed shard should not cancel the others")

	const prefix = "go run ./cmd/simulate "
	var line string
	for _, s := range shard.Steps {
		if strings.HasPrefix(s.Run, prefix) {
			line = s.Run
		}
	}
	require.NotEmpty(t, line, "a step that runs simulate")
	shards := shard.Strategy.Matrix.Shard
	require.NotEmpty(t, shards)
	for i, v := range shards {
		args := strings.Fields(strings.TrimPrefix(strings.ReplaceAll(line, "${{ matrix.shard }}", strconv.Itoa(v)), prefix))
		p := planOf(t, args)
		assert.Equal(t, len(shards), p.shard.Count, "the matrix lists as many shards as -shard's count")
		assert.Equal(t, i, p.shard.Index, "the matrix lists shards 0 to n-1 in order")
	}

	var merged bool
	for _, s := range merge.Steps {
		if strings.HasPrefix(s.Run, prefix+"merge ") {
			merged = true
			args := strings.Fields(strings.TrimPrefix(s.Run, prefix+"merge "))
			assert.Equal(t, "shards", args[len(args)-1], "merge reads the downloaded shards")
		}
		if strings.HasPrefix(s.Uses, "actions/download-artifact@") {
			assert.Equal(t, "shards", s.With["path"])
			assert.Equal(t, "true", s.With["merge-multiple"])
		}
	}
	assert.True(t, merged, "the merge job runs simulate merge")
}
