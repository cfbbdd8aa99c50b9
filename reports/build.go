package reports

import (
	"runtime"
	"runtime/debug"
)

// Build names the loopsim that made a record.
type Build struct {
	// Module is the main module's path and Version its version
	// ("(devel)" for a build from a checkout).
	Module  string `json:"module"`
	Version string `json:"version"`
	// Revision is the VCS revision, Modified set when the work tree had
	// changes, Time the revision's commit time: from the build info, or
	// as the command line found them when the build carries none.
	Revision string `json:"revision"`
	Modified bool   `json:"modified"`
	Time     string `json:"time,omitempty"`
	// GoVersion is the Go toolchain that built it.
	GoVersion string `json:"go_version"`
}

// ReadBuild is the running binary's build: the module and VCS stamps
// of runtime/debug.ReadBuildInfo. The VCS fields are empty when the
// binary was built without them (go run, -buildvcs=false).
func ReadBuild() Build {
	b := Build{GoVersion: runtime.Version()}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	b.Module, b.Version, b.GoVersion = info.Main.Path, info.Main.Version, info.GoVersion
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		case "vcs.time":
			b.Time = s.Value
		}
	}
	return b
}

// Name is the build for a person: the revision's first twelve digits,
// "+dirty" when modified, or the version when there is no revision.
func (b Build) Name() string {
	name := b.Revision
	if len(name) > 12 {
		name = name[:12]
	}
	if name == "" {
		name = b.Version
	}
	if name == "" {
		name = "unknown"
	}
	if b.Modified {
		name += "+dirty"
	}
	return name
}
