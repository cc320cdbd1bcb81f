import PushgateAPNs
import PushgateCore
import PushgateFCM
import PushgateInstalledServices
import Testing

@Suite("Device selection: exclusion and one push per phone")
struct DeviceSelectionTests {
    /// Devices `id=apns/fcm` (`-` for none), in installation-id order as the store lists them.
    static func devices(_ specs: [String]) throws -> [DeviceRecord] {
        let collection = NamespacePaths.devices(
            of: AgentKey(cwd: "/a"), of: PushSecret("pushgate-example-secret-0001-0123")!.serverKey)
        return try specs.map { spec in
            let parts = spec.split(separator: "=")
            let tokens = parts[1].split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            var fields: [String: JSONValue] = [:]
            if tokens[0] != "-" { fields[PushServiceID.apns.documentField] = .string(tokens[0]) }
            if tokens.count > 1, tokens[1] != "-" { fields[PushServiceID.fcm.documentField] = .string(tokens[1]) }
            return DeviceRecord(
                document: Document(path: try collection.document(String(parts[0])), fields: fields), formats: .installed
            )
        }
    }

    @Test(
        "selected devices and excluded count",
        arguments: [
            // No exclusion: every device with a token, each token once.
            (["a=-/f1", "b=-/f2"], nil, [], ["a", "b"], 0),
            (["a=-/f1", "b=-/f1"], nil, [], ["a"], 1),
            (["a=aa/f1", "b=-/f1"], nil, [], ["a"], 1),
            (["a=-/-", "b=-/f2"], nil, [], ["b"], 0),
            // A device left out leaves its other token free for the next device to hold it.
            (["a=-/f1", "b=aa/f1", "c=aa/-"], nil, [], ["a", "c"], 1),
            (["a=aa/-", "b=bb/aa", "c=-/bb"], nil, [], ["a", "c"], 1),
            // The same token in both fields is one token.
            (["a=t1/t1", "b=-/t1"], nil, [], ["a"], 1),
            // The caller's installation, and every registration of its token.
            (["a=-/f1", "b=-/f1", "c=-/f2"], "a", [], ["c"], 2),
            (["a=-/f1", "c=-/f2"], "z", [], ["a", "c"], 0),
            // A token the caller names.
            (["a=-/f1", "b=-/f2", "c=-/f2"], nil, ["f2"], ["a"], 2),
            (["a=aa/f1", "b=bb/-"], nil, ["f1"], ["b"], 1),
            // Both.
            (["a=-/f1", "b=-/f2", "c=-/f3"], "a", ["f3"], ["b"], 2),
        ] as [([String], String?, [String], [String], Int)]
    )
    func select(devices: [String], installation: String?, tokens: [String], selected: [String], excluded: Int)
        throws
    {
        let selection = DeviceSelection(excludedInstallationID: installation, excludedTokens: Set(tokens))
        let result = selection.apply(to: try Self.devices(devices))
        #expect(result.selected.map(\.installationID) == selected)
        #expect(result.excluded == excluded)
    }

    @Test(
        "one installation only; an installation read twice (a server-wide event) is pushed once",
        arguments: [
            (["a=-/f1", "b=-/f2", "c=-/f3"], "b", ["b"], 0),
            (["a=-/f1", "c=-/f3"], "b", [], 0),
            // Server-wide: one document per agent the installation follows.
            (["a=-/f1", "a=-/f1", "b=-/f2"], nil, ["a", "b"], 1),
            (["a=aa/-", "a=-/f9", "b=-/f2"], nil, ["a", "b"], 1),
            // The installation's second document leaves its tokens free for another's.
            (["a=aa/-", "a=bb/f9", "b=-/f9"], nil, ["a", "b"], 1),
            (["a=-/f1", "a=-/f1", "b=-/f2"], "a", ["a"], 1),
        ] as [([String], String?, [String], Int)]
    )
    func onlyOne(devices: [String], only: String?, selected: [String], excluded: Int) throws {
        let result = DeviceSelection(onlyInstallationID: only).apply(to: try Self.devices(devices))
        #expect(result.selected.map(\.installationID) == selected)
        #expect(result.excluded == excluded)
    }
}
