package loop

import "strconv"

// The trace writes counts and the loop names messages many times a turn;
// these tables spare an allocation for the small numbers every run uses.

// smallNumbers is how many numbers the tables hold: 0 to smallNumbers-1.
const smallNumbers = 1024

// numberText is "m0m1m2...m1023", the message ID of every small number,
// one after the other; numberAt[n] is where "m<n>" starts in it. One
// string and a table of offsets rather than 2,048 strings: the collector
// scans every pointer of a global table at every cycle, and offsets are
// not pointers.
var numberText, numberAt = func() (string, [smallNumbers + 1]uint16) {
	var at [smallNumbers + 1]uint16
	b := make([]byte, 0, 5*smallNumbers)
	for n := range smallNumbers {
		at[n] = uint16(len(b))
		b = strconv.AppendInt(append(b, 'm'), int64(n), 10)
	}
	at[smallNumbers] = uint16(len(b))
	return string(b), at
}()

// itoa is strconv.Itoa without an allocation for small counts.
func itoa(n int) string {
	if n >= 0 && n < smallNumbers {
		return numberText[numberAt[n]+1 : numberAt[n+1]]
	}
	return strconv.Itoa(n)
}

// messageID is the ID the loop gives its n-th message: m<n>.
func messageID(n int) string {
	if n >= 0 && n < smallNumbers {
		return numberText[numberAt[n]:numberAt[n+1]]
	}
	var b [24]byte
	return string(strconv.AppendInt(append(b[:0], 'm'), int64(n), 10))
}
