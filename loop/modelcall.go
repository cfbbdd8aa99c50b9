package loop

// ModelCall is the loop's own state at one model call, as
// Config.OnModelCall sees it: with the iteration's events so far (the
// Observer's) and the other seams' positions, it is what a model checker
// hashes to tell two runs that reached the same state apart from two that
// did not. Messages in Request and Iteration are the loop's own and valid
// only during the call.
type ModelCall struct {
	// Request is the request about to be sent (this attempt's).
	Request Request
	// Attempt is the attempt's number within its send (1 for the first).
	Attempt int
	// Retries, Overloads, Resends, ThinkingResends and StreamRetries are
	// the retry layer's counters within this send: back-off retries (since
	// the last stream retry), overloaded responses in a row,
	// invalid-request resends, thinking-only stream resends and the outer
	// layer's retries (Policy.StreamRetries).
	Retries, Overloads, Resends, ThinkingResends, StreamRetries int
	// Iteration is the state the current iteration started from, every
	// guard's counter included.
	Iteration State
	// State is the state the iteration holds at a main request (after
	// the pipeline's stages); zero for other requests.
	State State
	// Stats are the run's counters so far.
	Stats Stats
	// FellBack is set once the fallback model is in use.
	FellBack bool
	// MessagesMade counts the messages the loop has made (their IDs).
	MessagesMade int
	// OutputTotal sums the output of the main replies (the token budget's
	// measure).
	OutputTotal int
	// JitterDraws counts the draws taken from the seeded jitter stream:
	// with Config.Seed it fixes the stream's position.
	JitterDraws int
}

// modelCall tells Config.OnModelCall about the attempt about to be sent;
// counts are the retry layer's counters (Retries to StreamRetries).
func (c *caller) modelCall(req Request, attempt int, counts [5]int) {
	r := c.r
	if r.cfg.OnModelCall == nil {
		return
	}
	mc := ModelCall{Request: req, Attempt: attempt, Retries: counts[0], Overloads: counts[1], Resends: counts[2], ThinkingResends: counts[3], StreamRetries: counts[4],
		Iteration: r.iterStart, Stats: r.stats, FellBack: r.fellBack, MessagesMade: r.nextID, OutputTotal: r.outputTotal, JitterDraws: c.draws}
	if req.Purpose == PurposeMain && r.mainState != nil {
		mc.State = *r.mainState
	}
	r.cfg.OnModelCall(mc)
}
