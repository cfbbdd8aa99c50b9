package wirecheck

import (
	"flag"
	"fmt"
	"sync"
	"testing"
)

// rapidMu makes searches run one at a time: rapid reads its settings
// (the seed, the number of checks, the shrinking's time) from its
// command-line flags, which a search sets for each seed.
var rapidMu sync.Mutex

// testingInit makes testing's flags exist outside a test binary, where
// rapid reads testing.Short.
var testingInit sync.Once

// rapidSettings sets rapid for a search (one check a seed, no fail
// files, none read) and returns what restores the caller's settings.
func rapidSettings() (func(), error) {
	if !testing.Testing() {
		testingInit.Do(func() {
			testing.Init()
			if !flag.Parsed() {
				_ = flag.CommandLine.Parse(nil) // testing.Short asks that flags were parsed
			}
		})
	}
	names := []string{"rapid.checks", "rapid.seed", "rapid.nofailfile", "rapid.failfile", "rapid.shrinktime", "rapid.v", "rapid.log"}
	old := map[string]string{}
	for _, name := range names {
		f := flag.Lookup(name)
		if f == nil {
			return nil, fmt.Errorf("wirecheck: rapid has no flag -%s", name)
		}
		old[name] = f.Value.String()
	}
	restore := func() {
		for _, name := range names {
			_ = flag.Set(name, old[name])
		}
	}
	checks := "1"
	if testing.Short() {
		checks = "5" // rapid checks a fifth under -short
	}
	for _, kv := range [][2]string{{"rapid.checks", checks}, {"rapid.nofailfile", "true"}, {"rapid.failfile", ""}, {"rapid.v", "false"}, {"rapid.log", "false"}} {
		if err := setRapidFlag(kv[0], kv[1]); err != nil {
			restore()
			return nil, err
		}
	}
	return restore, nil
}

// setRapidFlag sets one of rapid's flags.
func setRapidFlag(name, value string) error {
	if err := flag.Set(name, value); err != nil {
		return fmt.Errorf("wirecheck: set rapid's -%s: %w", name, err)
	}
	return nil
}

// searchTB is the rapid.TB of one search seed: it keeps rapid from
// failing anything, and notes when rapid reports its finding (after
// which its last call replays the minimal case).
type searchTB struct {
	reported bool
	failed   bool
}

func (t *searchTB) Helper()                   {}
func (t *searchTB) Name() string              { return "wirecheck-search" }
func (t *searchTB) Logf(string, ...any)       {}
func (t *searchTB) Log(...any)                {}
func (t *searchTB) Skipf(string, ...any)      {}
func (t *searchTB) Skip(...any)               {}
func (t *searchTB) SkipNow()                  {}
func (t *searchTB) Errorf(string, ...any)     { t.reported, t.failed = true, true }
func (t *searchTB) Error(...any)              { t.reported, t.failed = true, true }
func (t *searchTB) Fatalf(f string, a ...any) { t.Errorf(f, a...) }
func (t *searchTB) Fatal(a ...any)            { t.Error(a...) }
func (t *searchTB) FailNow()                  { t.failed = true }
func (t *searchTB) Fail()                     { t.failed = true }
func (t *searchTB) Failed() bool              { return t.failed }
