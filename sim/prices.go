package sim

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Prices are what tokens cost, in dollars per million tokens.
type Prices struct {
	// Input is uncached input.
	Input float64 `json:"input"`
	// CacheWrite is input written to the prompt cache.
	CacheWrite float64 `json:"cache_write"`
	// CacheRead is input read from the prompt cache.
	CacheRead float64 `json:"cache_read"`
	// Output is output.
	Output float64 `json:"output"`
}

// DefaultPrices are list prices of a Sonnet-class model: $3 input,
// $3.75 cache write, $0.30 cache read, $15 output per million tokens.
var DefaultPrices = Prices{Input: 3, CacheWrite: 3.75, CacheRead: 0.30, Output: 15}

// MicroUSD is the cost of the given token counts in millionths of a
// dollar, rounded: a price per million tokens is a price in micro-dollars
// per token.
func (p Prices) MicroUSD(input, cacheWrite, cacheRead, output int64) int64 {
	return int64(math.Round(float64(input)*p.Input + float64(cacheWrite)*p.CacheWrite +
		float64(cacheRead)*p.CacheRead + float64(output)*p.Output))
}

// MaxPrice bounds a price, in dollars per million tokens, so that a
// cost in micro-dollars stays far inside an int64.
const MaxPrice = 100_000

// ParsePrices reads prices from "input=3,cache_write=3.75,cache_read=0.3,
// output=15"; the names left out keep their values in base.
func ParsePrices(s string, base Prices) (Prices, error) {
	p := base
	for _, kv := range strings.Split(s, ",") {
		if strings.TrimSpace(kv) == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return base, fmt.Errorf("prices: %q is not name=dollars", kv)
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(x >= 0 && x <= MaxPrice) { // NaN fails both
			return base, fmt.Errorf("prices: %s: %q is not a number of dollars per million tokens from 0 to %d", k, v, MaxPrice)
		}
		switch strings.TrimSpace(k) {
		case "input":
			p.Input = x
		case "cache_write":
			p.CacheWrite = x
		case "cache_read":
			p.CacheRead = x
		case "output":
			p.Output = x
		default:
			return base, fmt.Errorf("prices: unknown price %q (known: input, cache_write, cache_read, output)", k)
		}
	}
	return p, nil
}

// String is the form ParsePrices reads.
func (p Prices) String() string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	return "input=" + f(p.Input) + ",cache_write=" + f(p.CacheWrite) + ",cache_read=" + f(p.CacheRead) + ",output=" + f(p.Output)
}
