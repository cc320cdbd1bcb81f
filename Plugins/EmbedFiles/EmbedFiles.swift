import Foundation
import PackagePlugin

/// Embeds a folder's files in a target as an enum's `all`, (name, text) in name
/// order: the files stay the one source, and the binary runs with no repository
/// files beside it. The stores embed their SQL migrations (`store/<backend>/`), the
/// web pages their HTML, CSS and JavaScript (`web/`).
@main
struct EmbedFiles: BuildToolPlugin {
    struct Embedding {
        let folder: String
        let extensions: Set<String>
        let enumName: String
    }

    /// What each target embeds.
    static let embeddings: [String: Embedding] = [
        "PushgateSQLite": Embedding(folder: "store/sqlite", extensions: ["sql"], enumName: "EmbeddedMigrations"),
        "PushgatePostgres": Embedding(folder: "store/postgres", extensions: ["sql"], enumName: "EmbeddedMigrations"),
        "PushgateWeb": Embedding(
            folder: "web", extensions: ["html", "css", "js"], enumName: "EmbeddedWebFiles"),
    ]

    struct UnknownTarget: Error, CustomStringConvertible {
        let name: String
        var description: String { "EmbedFiles knows no folder to embed for the target \(name)" }
    }

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let embedding = Self.embeddings[target.name] else { throw UnknownTarget(name: target.name) }
        let folder = context.package.directoryURL.appending(path: embedding.folder)
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { embedding.extensions.contains($0.pathExtension) }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "\(embedding.enumName).swift")
        return [
            .buildCommand(
                displayName: "Embedding the files of \(embedding.folder)",
                executable: try context.tool(named: "PushgateFileEmbedder").url,
                arguments: [output.path, embedding.enumName] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output]
            )
        ]
    }
}
