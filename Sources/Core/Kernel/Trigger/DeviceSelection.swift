/// Which of the devices read a trigger reaches: every one with a token but those
/// the caller excludes, and each phone once.
///
/// The app triggers too (for a reply that finished while its user was elsewhere) and
/// excludes itself: its installation, every registration holding that
/// installation's stored token, and every registration holding a token it names.
/// A phone registered under two installation ids (a reinstall keeps the token) holds
/// the same token twice and gets one push, not two: a device sharing any token with
/// one already selected is left out, the first in installation-id order kept. So is
/// an installation already selected (a server-wide event reads one device document
/// per agent it follows). A trigger for one installation (`installation_id`) reaches
/// that installation's devices only; the others are not counted as excluded.
public struct DeviceSelection: Sendable, Hashable {
    public var excludedInstallationID: String?
    /// Tokens whose registrations are left out (`exclude_fcm_token`, trimmed).
    public var excludedTokens: Set<String>
    /// Only this installation (`triggerEvent`'s `installation_id`).
    public var onlyInstallationID: String?

    public init(
        excludedInstallationID: String? = nil, excludedTokens: Set<String> = [], onlyInstallationID: String? = nil
    ) {
        self.excludedInstallationID = excludedInstallationID
        self.excludedTokens = excludedTokens
        self.onlyInstallationID = onlyInstallationID
    }

    /// The devices to notify, in their order, and how many with a token were left out
    /// (excluded or the same phone again).
    public func apply(to devices: [DeviceRecord]) -> (selected: [DeviceRecord], excluded: Int) {
        var excludedTokens = excludedTokens
        if let excludedInstallationID,
            let excluded = devices.first(where: { $0.installationID == excludedInstallationID })
        {
            excludedTokens.formUnion(excluded.tokens)
        }
        // Sized for the page at once: grown one device at a time, the sets were hashed
        // again at every doubling (a fan-out reads 500 devices a page).
        var seen = Set<String>(minimumCapacity: devices.count)
        var seenInstallations = Set<String>(minimumCapacity: devices.count)
        var selected: [DeviceRecord] = []
        selected.reserveCapacity(devices.count)
        var excluded = 0
        for device in devices where device.deliveryToken != nil {
            if let onlyInstallationID, device.installationID != onlyInstallationID { continue }
            if device.installationID == excludedInstallationID
                || (!excludedTokens.isEmpty && device.tokens.contains(where: excludedTokens.contains))
                || !Self.takeFirstSighting(of: device, tokens: &seen, installations: &seenInstallations)
            {
                excluded += 1
                continue
            }
            selected.append(device)
        }
        return (selected, excluded)
    }

    /// Marks the device's tokens and installation seen, and says so, unless one of them
    /// was seen already: then nothing is marked. Each is hashed once, by its insertion
    /// (a lookup before an insertion hashed every token twice, 160 characters for FCM).
    private static func takeFirstSighting(
        of device: DeviceRecord, tokens: inout Set<String>, installations: inout Set<String>
    ) -> Bool {
        // The addresses themselves, not `tokens`: no array made for every device of a
        // fan-out. The same text twice on one device is one token.
        let held = device.addresses
        for (index, address) in held.enumerated() where !tokens.insert(address.value).inserted {
            if held[..<index].contains(where: { $0.value == address.value }) { continue }
            for earlier in held[..<index] { tokens.remove(earlier.value) }
            return false
        }
        guard installations.insert(device.installationID).inserted else {
            for address in held { tokens.remove(address.value) }
            return false
        }
        return true
    }
}
