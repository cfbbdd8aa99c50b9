package sim

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// thousands writes n with commas between groups of three digits.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// FormatTokens writes a token count as the summary's tables do: exact
// below 10,000, else with three significant digits and k or M (23.8k,
// 2.33M).
func FormatTokens(v float64) string {
	a := math.Abs(v)
	switch {
	case a < 10_000:
		return thousands(int64(math.Round(v)))
	case a < 999_500:
		return strconv.FormatFloat(v/1e3, 'f', max(0, 2-int(math.Log10(a/1e3))), 64) + "k"
	}
	return strconv.FormatFloat(v/1e6, 'f', max(0, 2-int(math.Log10(a/1e6))), 64) + "M"
}

// percent writes a fraction as a percentage with one decimal.
func percent(f float64) string { return strconv.FormatFloat(100*f, 'f', 1, 64) + "%" }

// usd writes micro-dollars as dollars with cents (three decimals under
// ten cents).
func usd(micro float64) string {
	d := micro / 1e6
	if math.Abs(d) < 0.1 {
		return fmt.Sprintf("$%.3f", d)
	}
	return fmt.Sprintf("$%.2f", d)
}

// decimal writes x with one decimal.
func decimal(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }
