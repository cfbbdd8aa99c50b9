package loop

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every kind the loop names has a status decided in kindStatuses, and
// each is the Messages API's.
func TestErrorKindStatus(t *testing.T) {
	want := map[ErrorKind]int{
		KindPromptTooLong: 400, KindRequestTooLarge: 413, KindMediaTooLarge: 400, KindImageSize: 0,
		KindFallbackTriggered: 529, KindOverloaded: 529, KindRateLimited: 429, KindServer: 500,
		KindConnection: 0, KindInvalidRequest: 400, KindStream: 0, KindOther: 0,
		KindException: 0, KindAborted: 0,
	}
	kinds := append(append([]ErrorKind(nil), ErrorKinds...), KindException, KindAborted)
	assert.Len(t, kinds, len(want), "a kind of ErrorKinds has no expected status in this test")
	for _, k := range kinds {
		_, decided := kindStatuses[k]
		assert.True(t, decided, "kind %s has no entry in kindStatuses", k)
		assert.Equal(t, want[k], k.Status(), "status of %s", k)
	}
	assert.Len(t, kindStatuses, len(kinds), "kindStatuses holds a kind that is not listed")
	assert.Zero(t, ErrorKind("no_such_kind").Status(), "an unknown kind")
}
