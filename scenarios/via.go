package scenarios

import (
	"context"
	"fmt"
	"time"

	"github.com/loopsim/loopsim/loop"
)

// Via is a way for the loop to reach a scenario's scripted model other
// than calling it in-process: a fake Messages API server answering from
// the script, and a loop.Model that calls the server.
type Via struct {
	// Model is the model seam the loop calls.
	Model loop.Model
	// Abort, if set, is what the script's abort steps call instead of
	// cancelling the run (a server cancels the answer in progress, sends
	// the blocks before the abort, then cancels the run itself). Abort
	// tools still cancel the run.
	Abort func()
	// Close, if set, releases what Model holds; RunVia calls it when the
	// run is over.
	Close func()
}

// RunVia runs s as [Run] does, but the loop calls the model that via
// returns. via gets the scenario's scripted model (what Run hands the
// loop; its faults of the scenario itself are still reported) and the
// run's cancel function (what an abort should end up calling).
func RunVia(ctx context.Context, s *Scenario, via func(script loop.Model, cancel context.CancelFunc) (Via, error)) (*Outcome, error) {
	wctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	runCtx, cancel := context.WithCancel(wctx)
	defer cancel()

	fx := s.fixture(cancel)
	v, err := via(fx.model, cancel)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	if v.Close != nil {
		defer v.Close()
	}
	if v.Abort != nil {
		fx.model.Cancel = v.Abort
	}
	fx.cfg.Model = v.Model
	timer := time.AfterFunc(Watchdog, func() { stop(errWatchdog) })
	res, err := loop.Run(runCtx, fx.cfg, fx.initial)
	if !timer.Stop() {
		return nil, watchdogError(s.Name, res)
	}
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	return s.judge(&fx, res), nil
}
