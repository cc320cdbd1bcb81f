/// One input of the HTTP/2 frame fuzzer: the first byte says how many requests
/// the client sends (1–8) and where the rest is cut into reads; the rest is what
/// the server sends. What must hold: nothing traps, every request is answered
/// exactly once by the time the connection is closed, and the frame reader finds
/// the same frames however the bytes are cut.
public enum FrameFuzzing {
    public static func check(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let serverBytes = Array(bytes.dropFirst())
        let requests = Int(first & 0x7) + 1
        let cut = Int(first >> 3) * max(serverBytes.count / 31, 1)
        let answers = HTTP2ClientReplay.answers(requests: requests, serverBytes: serverBytes, cuts: [cut, cut + 9])
        require(answers?.count == requests, "\(requests) requests, \(answers?.count ?? 0) answers")
        require(HTTP2ClientReplay.framesAgree(serverBytes, cut: cut), "the frames depend on where the bytes are cut")
    }
}
