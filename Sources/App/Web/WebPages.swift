import HTTPTypes
import Hummingbird
import NIOCore

/// The pages of `web/`, embedded in the executable at build time (nothing is read
/// from disk or fetched at run time): the gateway's console (`/console`) and the
/// emulators' phone (`/`). A page is one HTML file; its style and scripts are the
/// other files, served beside it under `<page path>/assets/`.
///
/// Every file goes out with a Content-Security-Policy that allows only this
/// origin's own scripts and styles (no inline script, nothing from elsewhere), is
/// never framed, and sends no referrer: a page that holds a push secret must not
/// leak it to another site or run script it did not ship.
public enum WebPages {
    /// One file as served.
    struct File: Sendable {
        let contentType: String
        let body: ByteBuffer
        /// A hash of the text: the build's, so a browser revalidates cheaply.
        let entityTag: String
    }

    static let files: [String: File] = Dictionary(
        uniqueKeysWithValues: EmbeddedWebFiles.all.map { name, text in
            (name, File(contentType: contentType(of: name), body: ByteBuffer(string: text), entityTag: entityTag(text)))
        })

    static let policy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// The paths `page` is served at: `path` itself and each asset under `path/assets/`,
    /// for GET and HEAD (what a router's "method not allowed" answer lists).
    public static func paths(at path: String) -> [String] {
        [path] + assetNames.map { assetsPath(at: path) + $0 }
    }

    /// Serves the HTML file `page` (a name in `web/`, e.g. `console.html`) at `path`
    /// (e.g. `/console`, or `/`), and every asset of `web/` under `path/assets/`.
    public static func add<Context: RequestContext>(_ page: String, at path: String, to router: Router<Context>) {
        for (name, route) in [(page, path)] + assetNames.map({ ($0, assetsPath(at: path) + $0) }) {
            addFile(name, at: route, to: router)
        }
    }

    /// Serves one file of `web/` (e.g. a service worker's script) at `path`, for GET and HEAD.
    public static func addFile<Context: RequestContext>(_ name: String, at path: String, to router: Router<Context>) {
        precondition(files[name] != nil, "web/\(name) is not embedded")
        router.get(RouterPath(path)) { request, _ in response(for: name, request: request) }
        router.head(RouterPath(path)) { request, _ in response(for: name, request: request) }
    }

    /// Every file but the pages themselves.
    static var assetNames: [String] { files.keys.filter { !$0.hasSuffix(".html") }.sorted() }

    static func assetsPath(at path: String) -> String {
        (path.hasSuffix("/") ? path : path + "/") + "assets/"
    }

    static func response(for name: String, request: Request) -> Response {
        guard let file = files[name] else { return Response(status: .notFound) }
        var headers: HTTPFields = [
            .contentType: file.contentType,
            .contentSecurityPolicy: policy,
            .cacheControl: "no-cache",
            .eTag: file.entityTag,
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            HTTPField.Name("Referrer-Policy")!: "no-referrer",
        ]
        if request.headers[.ifNoneMatch] == file.entityTag {
            headers[.contentType] = nil
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(file.body.readableBytes)
        return Response(
            status: .ok, headers: headers, body: request.method == .head ? .init() : .init(byteBuffer: file.body))
    }

    static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        default: "application/octet-stream"
        }
    }

    /// FNV-1a of the text, quoted: the same text always gets the same tag.
    static func entityTag(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return "\"" + String(hash, radix: 16) + "\""
    }
}
