//go:build race

package fakeapi_test

// raceEnabled: the race detector slows the server ten times; the load
// tests send fewer requests under it.
const raceEnabled = true
