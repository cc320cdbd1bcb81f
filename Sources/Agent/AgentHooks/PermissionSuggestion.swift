import PushgateCore

/// One of a `PermissionRequest`'s `permission_suggestions` (Claude Code's
/// `PermissionUpdate`: `addRules` / `replaceRules` / `removeRules` with `rules` of
/// `{toolName, ruleContent?}` and a `behavior`, `setMode` with a `mode`,
/// `addDirectories` / `removeDirectories` with `directories`; each with a
/// `destination`: `session`, `localSettings`, `projectSettings`, `userSettings`), as
/// the phone's "Always" button explains it (issue 84). The suggestion itself goes back
/// to the agent verbatim.
public enum PermissionSuggestion {
    /// What choosing it does, in a line of at most 200 characters.
    public static func label(_ suggestion: JSONValue) -> String {
        let object = suggestion.objectValue ?? [:]
        let place = object["destination"]?.stringValue.map(Self.place).map { " " + $0 } ?? ""
        let label: String
        switch object["type"]?.stringValue {
        case "addRules"?, "replaceRules"?:
            let rules = (object["rules"]?.arrayValue ?? []).compactMap { rule -> String? in
                guard let tool = rule.objectValue?["toolName"]?.stringValue else { return nil }
                return rule.objectValue?["ruleContent"]?.stringValue.map { "\(tool)(\($0))" } ?? tool
            }
            let behavior = object["behavior"]?.stringValue ?? "allow"
            label = "Always \(behavior) " + (rules.isEmpty ? "this" : rules.joined(separator: ", ")) + place
        case "setMode"?:
            label = "Switch to \(object["mode"]?.stringValue ?? "another") mode" + place
        case "addDirectories"?:
            let directories = (object["directories"]?.arrayValue ?? []).compactMap(\.stringValue)
            label =
                "Always allow access to " + (directories.isEmpty ? "this folder" : directories.joined(separator: ", "))
                + place
        default:
            label = "Always allow" + place
        }
        return ClaudeHookEvent.title(label) ?? "Always allow"
    }

    private static func place(_ destination: String) -> String {
        switch destination {
        case "session": "for this session"
        case "localSettings", "projectSettings": "in this project"
        case "userSettings": "everywhere"
        default: ""
        }
    }
}
