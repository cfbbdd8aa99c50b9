package loop

// kindStatuses is the HTTP status of the Messages API for each failure
// kind, 0 where the kind is no status of its own. Every kind of
// [ErrorKinds], [KindException] and [KindAborted] has an entry, so a new
// kind is a decision here (a test fails while one is missing).
var kindStatuses = map[ErrorKind]int{
	KindPromptTooLong:     400,
	KindRequestTooLarge:   413,
	KindMediaTooLarge:     400,
	KindImageSize:         0,
	KindFallbackTriggered: 529,
	KindOverloaded:        529,
	KindRateLimited:       429,
	KindServer:            500,
	KindConnection:        0,
	KindInvalidRequest:    400,
	KindStream:            0,
	KindOther:             0,
	KindException:         0,
	KindAborted:           0,
}

// Status is the HTTP status the Anthropic Messages API answers a failure
// of kind k with, as the in-process fakes put it in
// [RequestError.Status] (fakemodel's scripted and stochastic models) and
// looptest's checks expect it:
//
//	prompt_too_long, media_too_large, invalid_request   400
//	request_too_large                                   413
//	rate_limited                                        429
//	server_error                                        500 (any 5xx is one; 500 is the default)
//	overloaded, fallback_triggered                      529
//	image_size, connection, stream_error                0: no status (a check before sending, a
//	                                                    dropped connection, an error event in a stream)
//	other                                               0: the status is the failure's own
//	exception, aborted                                  0: not an API failure
//
// A wire's fake server maps a kind with no status as its API does (a
// dropped connection, an error event); its error type follows the
// status.
func (k ErrorKind) Status() int { return kindStatuses[k] }
