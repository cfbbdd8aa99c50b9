package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/loopsim/loopsim/fakemodel"
	"github.com/loopsim/loopsim/loop"
)

// WorkloadFileVersion is the version of the workload file format this
// loopsim writes and reads.
const WorkloadFileVersion = 1

// WorkloadFile is a workload fitted to session logs (`simulate
// calibrate` writes it, `simulate -workload FILE` runs on it), with the
// model it was fitted for and where it came from.
type WorkloadFile struct {
	// Version is [WorkloadFileVersion].
	Version int `json:"version"`
	// Model is the model of the sessions; a zero ContextWindow means the
	// simulation's own.
	Model loop.ModelInfo `json:"model"`
	// Workload is the fitted workload.
	Workload fakemodel.Workload `json:"workload"`
	// Source says what it was fitted on.
	Source WorkloadSource `json:"source"`
	// HeldOut is how well the fit predicts sources it never saw, when
	// `simulate calibrate -cv` measured it.
	HeldOut *HeldOut `json:"held_out,omitempty"`
}

// WorkloadSource is what a workload file was fitted on.
type WorkloadSource struct {
	// Files are the session logs read.
	Files []string `json:"files"`
	// Sessions, Calls, Prompts and Compactions count what was measured.
	Sessions    int `json:"sessions"`
	Calls       int `json:"calls"`
	Prompts     int `json:"prompts"`
	Compactions int `json:"compactions"`
	// Fitted and Kept list the parameters measured and those assumed.
	Fitted []string `json:"fitted"`
	Kept   []string `json:"kept"`
}

// WriteWorkloadFile writes wf to path as indented JSON.
func WriteWorkloadFile(path string, wf WorkloadFile) error {
	wf.Version = WorkloadFileVersion
	b, err := json.MarshalIndent(wf, "", "  ")
	if err != nil {
		return fmt.Errorf("workload file %s: %w", path, err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("workload file: %w", err)
	}
	return nil
}

// ReadWorkloadFile reads and validates a workload file: unknown fields,
// another version or an invalid parameter are errors naming the file.
func ReadWorkloadFile(path string) (WorkloadFile, error) {
	var wf WorkloadFile
	b, err := os.ReadFile(path)
	if err != nil {
		return wf, fmt.Errorf("workload file: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&wf); err != nil {
		return wf, fmt.Errorf("workload file %s: %w", path, err)
	}
	if wf.Version != WorkloadFileVersion {
		return wf, fmt.Errorf("workload file %s: version %d, this loopsim reads version %d", path, wf.Version, WorkloadFileVersion)
	}
	if err := wf.Workload.Validate(); err != nil {
		return wf, fmt.Errorf("workload file %s: %w", path, err)
	}
	if wf.Model.ContextWindow < 0 || wf.Model.MaxOutputTokens < 0 {
		return wf, fmt.Errorf("workload file %s: model limits must not be negative", path)
	}
	return wf, nil
}

// WithWorkloadFile returns s running on the workload of wf (read from
// path), and on its model when the file gives the model's limits.
func (s Setting) WithWorkloadFile(path string, wf WorkloadFile) Setting {
	s.Workload = wf.Workload
	if wf.Model.ContextWindow > 0 {
		s.Model.ContextWindow = wf.Model.ContextWindow
		if wf.Model.Name != "" {
			s.Model.Name = wf.Model.Name
		}
	}
	if wf.Model.MaxOutputTokens > 0 {
		s.Model.MaxOutputTokens = wf.Model.MaxOutputTokens
	}
	s.WorkloadFile = path
	return s
}
