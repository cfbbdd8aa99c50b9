package scenarios

import (
	"embed"
	"io/fs"
)

//go:embed library/*.yaml
var library embed.FS

// LibraryFS is the built-in library of scenarios: library/*.yaml.
func LibraryFS() fs.FS { return library }

// Library loads the built-in library, in file-name order.
func Library() ([]*Scenario, error) { return LoadFS(library, "library") }
