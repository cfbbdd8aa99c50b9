package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFormats(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{thousands(0), "0"},
		{thousands(999), "999"},
		{thousands(1_234_567), "1,234,567"},
		{thousands(-12_345), "-12,345"},
		{FormatTokens(523), "523"},
		{FormatTokens(9_999), "9,999"},
		{FormatTokens(23_807), "23.8k"},
		{FormatTokens(167_000), "167k"},
		{FormatTokens(2_326_056), "2.33M"},
		{FormatTokens(99_846_027), "99.8M"},
		{percent(0.0189), "1.9%"},
		{usd(1_158_331), "$1.16"},
		{usd(42_000), "$0.042"},
		{humanCount(0), "0"},
		{humanCount(500), "500"},
		{humanCount(0.05), "0.05"},
		{humanCount(50_000), "50k"},
		{humanCount(167_000), "167k"},
		{humanCount(1_500_000), "1.5M"},
	} {
		assert.Equal(t, c.want, c.got)
	}
}
