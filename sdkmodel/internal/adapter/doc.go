// Package adapter is the core every [loop.Model] over an official SDK
// shares (sdkmodel for the Messages API, sdkmodel/chat, sdkmodel/responses,
// sdkmodel/gemini). An API's package supplies only what its SDK makes
// different: the request's conversion, the reading of the SDK's events
// into blocks (a [Reader]) and the reading of its errors into an
// [Answer]. The core does the rest alike for every API:
//
//   - the settings every Config has ([Setup]: the key, the address, the
//     HTTP client, the non-streaming timeout, with their defaults);
//   - the stream loop ([Read]): each event through the Reader, each
//     finished block handed to the loop while the context is not done, the
//     context's error once it is, the failure the SDK reports classified,
//     a stream that ends without its end marker a dropped connection;
//   - the non-streaming answer ([Wire.Answered], [Hand]);
//   - the failure in the loop's terms ([Classify]: one status table for
//     every API, put in the loop's statuses, [loop.ErrorKind.Status]; a
//     connection that drops after the stream began, [Wire.Failure]);
//   - what HTTP says alike whatever the API ([RetryAfterMS],
//     [ConnectionFailed]).
package adapter
