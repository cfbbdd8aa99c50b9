package reports

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
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
	// Binary is the SHA-256 of the executable, in hex, when the build
	// carries no VCS stamp: it tells two unstamped builds apart and names
	// one binary the same wherever it runs. Empty when the executable
	// cannot be read.
	Binary string `json:"binary,omitempty"`
}

// ReadBuild is the running binary's build: the module and VCS stamps
// of runtime/debug.ReadBuildInfo. The VCS fields are empty when the
// binary was built without them (go run, -buildvcs=false); Binary is
// then the executable's digest. Nothing in it depends on the working
// directory.
func ReadBuild() Build {
	b := readStamps()
	if b.Revision == "" {
		b.Binary = executableDigest()
	}
	return b
}

// executableDigest is the SHA-256 of the running executable, read once.
var executableDigest = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
})

// readStamps is the build info's module and VCS stamps.
func readStamps() Build {
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
// "+dirty" when modified, or the version (and the binary's digest) when
// there is no revision.
func (b Build) Name() string {
	name := b.Revision
	if len(name) > 12 {
		name = name[:12]
	}
	if name == "" {
		name = b.Version
		if len(b.Binary) >= 12 {
			name += " binary " + b.Binary[:12]
		}
	}
	if name == "" {
		name = "unknown"
	}
	if b.Modified {
		name += "+dirty"
	}
	return name
}
