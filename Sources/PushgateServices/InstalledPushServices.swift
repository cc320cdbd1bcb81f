import PushgateAPNs
import PushgateCore
import PushgateFCM

extension PushAddressFormats {
    /// The push services this build installs, one line each, in the order a device
    /// holding addresses of several is delivered to. A new service adds its target
    /// (its address format, its provider) and its line here (ARCHITECTURE.md, "Adding
    /// a push service").
    public static let installed = PushAddressFormats([
        APNsAddress.format,
        FCMAddress.format,
    ])
}
