// Package field finds a struct field by its JSON name, or a nested one by
// a dotted path of JSON names ("faults.overloaded"), and sets it from
// text, by one rule for every command-line override (-set, -sweep), every
// With method and the scenario loader's field names:
//
//   - Surrounding spaces are trimmed from the text.
//   - An integer is decimal, with an optional sign; single underscores may
//     group its digits ("20_000", "-1_000"), each between two digits. It
//     must fit the field (an int is 64 bits).
//   - A number (float) is what [strconv.ParseFloat] reads: a decimal,
//     an exponent, Inf, NaN (ranges are the caller's to check), and
//     underscores between digits as for an integer ("0.000_5").
//   - A duration is what [time.ParseDuration] reads ("1.5s", "300ms").
//   - A boolean is true, on or 1, or false, off or 0, in any case.
//   - A string is the trimmed text.
//   - A list is comma-separated; each item is trimmed and read by its
//     element's rule, empty items are dropped, so "" is an empty list.
//
// A text that does not read is an [*Error] naming the field's path and
// the type it wants (the Parse functions return the zero value with
// it). The package imports the standard library only, so that loop/,
// which may import nothing else, can use it.
package field
