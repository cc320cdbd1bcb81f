import Hummingbird
import PushgateCore
import PushgateFunctions

extension FunctionRoutes {
    /// `startPairing`, `completePairing`, `awaitPairing` and `GET /pairings` (issue 82): a
    /// phone paired with an agent's machine by a code that never passes through here.
    func addPairing(to router: Router<Context>) {
        let parts = self.parts
        router.post("startPairing") { request, _ in
            let (secret, fields) = try await Self.read(request, receivedAt: parts.now(), emptyBodyAllowed: true)
            return try JSONAnswer.response(
                try await parts.startPairing(secret: secret, StartPairingRequest(fields: fields)))
        }
        router.post("completePairing") { request, _ in
            let (secret, fields) = try await Self.read(request, receivedAt: parts.now())
            return try JSONAnswer.response(
                try await parts.completePairing(secret: secret, CompletePairingRequest(fields: fields)))
        }
        router.get("pairings") { request, _ in
            try JSONAnswer.response(try await parts.openPairings(secret: Self.secret(of: request)))
        }
        router.post("awaitPairing") { request, context in
            let (secret, fields) = try await Self.read(request, receivedAt: parts.now())
            let call = try AwaitPairingRequest(fields: fields)
            // A caller that goes away frees its wait at once.
            let answer = try await context.untilClientLeaves {
                try await parts.awaitPairing(secret: secret, call)
            }
            return try JSONAnswer.response(json: answer.json)
        }
    }
}
