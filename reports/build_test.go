package reports

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadBuildNamesAnUnstampedBinaryByItsDigest: a test binary has no
// VCS stamp (like go run and -buildvcs=false builds), so its build is
// named by the executable's SHA-256, which does not depend on the
// working directory.
func TestReadBuildNamesAnUnstampedBinaryByItsDigest(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	data, err := os.ReadFile(exe)
	require.NoError(t, err)
	sum := sha256.Sum256(data)
	b := ReadBuild()
	assert.Empty(t, b.Revision)
	assert.Equal(t, hex.EncodeToString(sum[:]), b.Binary)
	t.Chdir(t.TempDir())
	assert.Equal(t, b, ReadBuild())
	assert.Equal(t, "(devel) binary "+b.Binary[:12], Build{Version: "(devel)", Binary: b.Binary}.Name())
	assert.Equal(t, "0123456789ab+dirty", Build{Version: "(devel)", Revision: "0123456789abcdef", Modified: true, Binary: b.Binary}.Name())
}
