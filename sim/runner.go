package sim

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// Config is a simulation: every setting plays the same episodes.
type Config struct {
	// Settings are the configurations compared. Required.
	Settings []Setting
	// Episodes is the number of episodes per setting. Required.
	Episodes int
	// Seed is the root seed every episode's seed derives from.
	Seed uint64
	// Workers is the number of episodes played at once; zero means
	// GOMAXPROCS. The results do not depend on it.
	Workers int
	// Prices price the tokens.
	Prices Prices
	// Check checks every episode's invariants; nil skips the check (and
	// the trace each check needs).
	Check Checker
	// Progress, if set, is called after each episode with the number of
	// episodes done and the total, from the workers' goroutines.
	Progress func(done, total int)
	// OnEpisode, if set, sees every episode as it finishes, with the
	// index of its setting in Settings: from the workers' goroutines, at
	// once and in no fixed order (a recorder orders them by setting and
	// [Episode.Index]). ep is valid only during the call.
	OnEpisode func(setting int, ep *Episode)
	// Shard, if set (Count > 0), plays only the shard's slice of the
	// episodes of every setting (see [Shard.Range]): the same episodes,
	// with the same seeds, a whole run plays at those indices.
	Shard Shard
}

// Result is a finished simulation.
type Result struct {
	// Seed is the root seed.
	Seed uint64
	// Episodes is the number of episodes per setting.
	Episodes int
	// Prices priced the tokens.
	Prices Prices
	// Checked is set when every episode's invariants were checked.
	Checked bool
	// Settings are the results, in the order of Config.Settings.
	Settings []SettingResult
	// Partial is set when the run was interrupted (its context was
	// cancelled): Settings hold only the episodes that finished, each
	// whole, fewer than Episodes.
	Partial bool
	// Shard is the shard the run played (Count 0: the whole run); the
	// aggregates then hold the shard's episodes only.
	Shard Shard

	// pairs holds each episode's tokens, cost and failure per setting, for the
	// paired comparisons of the Pareto view; nil when the run was too
	// large to keep them (see maxPaired) or was interrupted.
	pairs *pairs
	// axes are the Pareto view's axes; nil: DefaultParetoAxes.
	axes *ParetoAxes
}

// SettingResult is one setting's aggregate.
type SettingResult struct {
	Setting   Setting
	Aggregate *Aggregate
}

// Run plays cfg.Episodes episodes of every setting on cfg.Workers
// goroutines. Each worker aggregates what it plays; the aggregates merge
// at the end, in an order that does not change the result. When ctx is
// cancelled Run stops starting episodes and returns, with an error
// wrapping ctx's, the episodes that finished: a Result marked Partial.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if len(cfg.Settings) == 0 {
		return nil, errors.New("sim: no settings to run")
	}
	if cfg.Episodes <= 0 {
		return nil, fmt.Errorf("sim: %d episodes: need at least one", cfg.Episodes)
	}
	for i, s := range cfg.Settings {
		if err := s.Workload.Validate(); err != nil {
			return nil, fmt.Errorf("sim: setting %d (%s): %w", i, s.Name, err)
		}
		if err := s.Policy.Validate(); err != nil {
			return nil, fmt.Errorf("sim: setting %d (%s): %w", i, s.Name, err)
		}
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if err := cfg.Shard.check(cfg.Episodes); err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	lo, hi := cfg.Shard.Range(cfg.Episodes)
	per := hi - lo
	total := len(cfg.Settings) * per
	workers = max(min(workers, total), 1)

	aggs := make([][]*Aggregate, workers)
	for w := range aggs {
		aggs[w] = make([]*Aggregate, len(cfg.Settings))
		for i := range aggs[w] {
			aggs[w][i] = NewAggregate()
		}
	}
	pairs := newPairs(len(cfg.Settings), cfg.Episodes, lo, hi)
	var done atomic.Int64
	err := forEach(ctx, workers, total, func(w, j int) error {
		si, index := j/per, lo+j%per
		ep, err := RunEpisode(cfg.Settings[si], cfg.Seed, index, cfg.Prices, cfg.Check)
		if err != nil {
			return err
		}
		aggs[w][si].Add(&ep)
		pairs.set(si, &ep)
		if cfg.OnEpisode != nil {
			cfg.OnEpisode(si, &ep)
		}
		if cfg.Progress != nil {
			cfg.Progress(int(done.Add(1)), total)
		}
		return nil
	})
	interrupted := err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err())
	if err != nil && !interrupted {
		return nil, fmt.Errorf("sim: %w", err)
	}
	res := &Result{Seed: cfg.Seed, Episodes: cfg.Episodes, Prices: cfg.Prices, Checked: cfg.Check != nil, Partial: interrupted, Shard: cfg.Shard}
	if !interrupted {
		res.pairs = pairs
	}
	for i, s := range cfg.Settings {
		agg := NewAggregate()
		for _, w := range aggs {
			agg.Merge(w[i])
		}
		res.Settings = append(res.Settings, SettingResult{Setting: s, Aggregate: agg})
	}
	if interrupted {
		return res, fmt.Errorf("sim: interrupted after %d of %d episodes: %w", done.Load(), total, err)
	}
	return res, nil
}

// forEach calls job(w, j) for every j in [0, total) on workers
// goroutines, w being the calling worker's number: jobs that share a w
// never run at once. It stops at the first error or when ctx is
// cancelled, and returns the error of the lowest job that failed, or
// ctx's error.
func forEach(ctx context.Context, workers, total int, job func(w, j int) error) error {
	workers = max(min(workers, total), 1)
	var next atomic.Int64
	var stop atomic.Bool
	errs := make([]error, workers)
	failed := make([]int, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for !stop.Load() {
				j := int(next.Add(1) - 1)
				if j >= total {
					return
				}
				if ctx.Err() != nil {
					stop.Store(true)
					return
				}
				if err := job(w, j); err != nil {
					errs[w], failed[w] = err, j
					stop.Store(true)
					return
				}
			}
		})
	}
	wg.Wait()
	first := -1
	for w, err := range errs {
		if err != nil && (first < 0 || failed[w] < failed[first]) {
			first = w
		}
	}
	if first >= 0 {
		return errs[first]
	}
	return ctx.Err()
}
