//go:build unix

package transcript_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/loopsim/loopsim/transcript"
)

// TestFilesRefusesWhatIsNeitherFolderNorFile: a path that is neither a
// folder to walk nor a regular file (a device such as /dev/null) is
// refused, naming it; it used to be read as a log with no session.
func TestFilesRefusesWhatIsNeitherFolderNorFile(t *testing.T) {
	_, err := transcript.Files(t.TempDir(), "/dev/null")
	assert.EqualError(t, err, "transcript: /dev/null is neither a folder nor a regular file (a character device)")
}
