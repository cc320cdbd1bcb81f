import Hummingbird

/// The status code a thrown error is answered with, as the middleware that observe
/// each request (log, metrics) report it: an `HTTPResponseError`'s own, else 500.
func answeredStatus(of error: any Error) -> Int {
    (error as? any HTTPResponseError)?.status.code ?? 500
}
