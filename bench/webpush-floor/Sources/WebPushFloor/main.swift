// Times the floor of one Web Push's CPU: one P-256 key pair, one ECDH, the HKDF
// steps and one AES-128-GCM seal of a payload of the given size (RFC 8291), with
// swift-crypto alone, on one thread. Prints the CPU time per push in microseconds.
//
//   webpush-floor PAYLOAD_BYTES [ITERATIONS]
import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count >= 2, let size = Int(arguments[1]), (0...3993).contains(size) else {
    FileHandle.standardError.write(Data("usage: webpush-floor PAYLOAD_BYTES (0-3993) [ITERATIONS]\n".utf8))
    exit(2)
}
let iterations = arguments.count >= 3 ? max(1, Int(arguments[2]) ?? 20_000) : 20_000

let receiver = P256.KeyAgreement.PrivateKey().publicKey
let receiverPublic = receiver.x963Representation
let auth = Data((0..<16).map { UInt8($0) })
let salt = Data((0..<16).map { UInt8(255 - $0) })
let plaintext = Data(repeating: 0x61, count: size) + [2]

func threadCPU() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// One push's encryption; answers the sealed size, so that nothing is optimised away.
func push() throws -> Int {
    let sender = P256.KeyAgreement.PrivateKey()
    let senderPublic = sender.publicKey.x963Representation
    let shared = try sender.sharedSecretFromKeyAgreement(with: receiver)
    let inputKey = shared.hkdfDerivedSymmetricKey(
        using: SHA256.self, salt: auth, sharedInfo: Data("WebPush: info\0".utf8) + receiverPublic + senderPublic,
        outputByteCount: 32)
    let key = HKDF<SHA256>.deriveKey(
        inputKeyMaterial: inputKey, salt: salt, info: Data("Content-Encoding: aes128gcm\0".utf8), outputByteCount: 16)
    let nonce = HKDF<SHA256>.deriveKey(
        inputKeyMaterial: inputKey, salt: salt, info: Data("Content-Encoding: nonce\0".utf8), outputByteCount: 12)
    let sealed = try AES.GCM.seal(plaintext, using: key, nonce: AES.GCM.Nonce(data: nonce.withUnsafeBytes { Data($0) }))
    return sealed.ciphertext.count
}

var sink = 0
for _ in 0..<(iterations / 10) { sink &+= try push() }  // warm up
let start = threadCPU()
for _ in 0..<iterations { sink &+= try push() }
let perPush = (threadCPU() - start) / Double(iterations) * 1e6
print(String(format: "%.2f", perPush), sink > 0 ? "" : "-")
