package loop

import "strconv"

// The trace writes counts and the loop names messages many times a turn;
// these tables spare an allocation for the small numbers every run uses.

// smallInts are the decimal forms of the counts a trace records most.
var smallInts = func() [1024]string {
	var t [1024]string
	for i := range t {
		t[i] = strconv.Itoa(i)
	}
	return t
}()

// itoa is strconv.Itoa without an allocation for small counts.
func itoa(n int) string {
	if n >= 0 && n < len(smallInts) {
		return smallInts[n]
	}
	return strconv.Itoa(n)
}

// smallIDs are the IDs of a run's first messages.
var smallIDs = func() [1024]string {
	var t [1024]string
	for i := range t {
		t[i] = "m" + strconv.Itoa(i)
	}
	return t
}()

// messageID is the ID the loop gives its n-th message: m<n>.
func messageID(n int) string {
	if n >= 0 && n < len(smallIDs) {
		return smallIDs[n]
	}
	var b [24]byte
	return string(strconv.AppendInt(append(b[:0], 'm'), int64(n), 10))
}
