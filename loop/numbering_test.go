package loop

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSmallNumbersReadAsTheirDecimalForm: the tables and the fallback
// agree with strconv on both sides of the tables' end.
func TestSmallNumbersReadAsTheirDecimalForm(t *testing.T) {
	for n := -2; n <= smallNumbers+2; n++ {
		require.Equal(t, strconv.Itoa(n), itoa(n), "itoa(%d)", n)
		if n >= 0 {
			require.Equal(t, "m"+strconv.Itoa(n), messageID(n), "messageID(%d)", n)
		}
	}
}
