import Foundation

#if canImport(Glibc)
    // `struct stat` and its fields are declared, for this target, in the module of
    // Foundation's C headers.
    import CoreFoundation
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A push secret in a file every user of the machine can read. Said, not refused: the
/// secret lets its holder send pushes to the server's devices and no more, and a
/// refusal would stop, silently, a hook that works today. A file readable by its group
/// alone is taken as meant (`root:proxy 0640` for a service in that group).
enum SecretFileExposure {
    /// The warning for the secret file at `path`, if others can read it.
    static func warning(for path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & 0o004 != 0 else { return nil }
        return
            "the secret file \(path) can be read by every user (mode \(String(status.st_mode & 0o777, radix: 8))): chmod o-r \(path)"
    }
}
