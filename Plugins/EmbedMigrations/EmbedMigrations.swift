import Foundation
import PackagePlugin

/// Embeds a store's SQL migrations, the files of `store/<backend>/` in name order,
/// in its target as `EmbeddedMigrations.all`: the files stay the one source, and
/// the binary runs with no repository files beside it.
@main
struct EmbedMigrations: BuildToolPlugin {
    /// The folder of `store/` each store target embeds.
    static let backends = ["PushgateSQLite": "sqlite", "PushgatePostgres": "postgres"]

    struct UnknownTarget: Error, CustomStringConvertible {
        let name: String
        var description: String { "EmbedMigrations knows no migrations folder for the target \(name)" }
    }

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let backend = Self.backends[target.name] else { throw UnknownTarget(name: target.name) }
        let folder = context.package.directoryURL.appending(path: "store").appending(path: backend)
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations.swift")
        return [
            .buildCommand(
                displayName: "Embedding the migrations of store/\(backend)",
                executable: try context.tool(named: "PushgateMigrationEmbedder").url,
                arguments: [output.path] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output]
            )
        ]
    }
}
