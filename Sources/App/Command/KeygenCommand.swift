import ArgumentParser
import Foundation
import PushgateCore
import PushgateWebPush

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Print a new push secret (or write a VAPID key).",
        discussion: """
            Without options: 32 random bytes, base64. Agent servers and their apps share it; its SHA-256 names \
            the namespace.
            With --vapid FILE: a new P-256 private key, PEM, written to FILE (mode 0600, never over an existing \
            file), for PUSHGATE_WEBPUSH_VAPID_KEY_PATH; its public key is printed (what GET \
            /webpush/vapid-public-key answers).
            """
    )

    @Option(name: .customLong("vapid"), help: "Write a new VAPID private key (PEM) to this file.")
    var vapidPath: String?

    func run() throws {
        guard let vapidPath else {
            print(PushSecret.generate().value)
            return
        }
        let pem = VAPIDKey.generatePEM()
        try Self.writeNew(pem, to: vapidPath)
        guard let key = try? VAPIDKey(contentsOf: vapidPath) else {
            throw CommandFailure("\(vapidPath): the key written does not read back")
        }
        print(key.publicKeyBase64URL)
    }

    /// Creates `path` readable by its owner only, failing when it exists: a key is
    /// never replaced by accident (every subscription made with it would be lost).
    private static func writeNew(_ text: String, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = errno == EEXIST ? "it exists (a key in use is not replaced)" : String(cString: strerror(errno))
            throw CommandFailure("cannot write \(path): \(reason)")
        }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { rest in
                rest.baseAddress.map { write(descriptor, $0, rest.count) } ?? 0
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                let reason = String(cString: strerror(errno))
                unlink(path)
                throw CommandFailure("cannot write \(path): \(reason)")
            }
            written += count
        }
    }
}
