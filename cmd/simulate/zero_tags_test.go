package main

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/loopsim/loopsim/loop"
	"github.com/loopsim/loopsim/sim"
)

// zeroIsSwitch finds a doc comment that gives zero a meaning of its own
// ("zero means no cap", "zero switches the cap off", "when non-zero").
var zeroIsSwitch = regexp.MustCompile(`(?i)\bzero (means|switches|never)\b|\bnon-zero\b`)

// TestZeroTagsFollowDocs: a policy field carries a zero tag (which the
// plots and tables show in place of 0) exactly when its doc comment
// says zero is a switch, so that labels follow the documentation.
func TestZeroTagsFollowDocs(t *testing.T) {
	typ := reflect.TypeOf(loop.Policy{})
	tagged := 0
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		doc := fieldDocs["policy."+name]
		says := zeroIsSwitch.MatchString(doc)
		assert.Equal(t, says, f.Tag.Get("zero") != "", "%s: doc %q, zero tag %q", name, doc, f.Tag.Get("zero"))
		assert.Equal(t, f.Tag.Get("zero"), sim.ZeroMeaning(name), name)
		if says {
			tagged++
		}
	}
	assert.GreaterOrEqual(t, tagged, 5, "the fields whose zero is a switch")
}
