import PushgateCore
import Testing

@Suite("Document writes")
struct DocumentWriteTests {
    let path = try! DocumentPath("things", "one")

    @Test("merge keeps fields not named; valueIfAbsent keeps a stored value; delete removes")
    func merge() {
        let stored: [String: JSONValue] = ["a": "1", "createdAt": "old", "gone": "x"]
        let write = DocumentWrite.set(path, ["b": "2", "createdAt": .valueIfAbsent("new"), "gone": .delete])
        #expect(write.apply(to: stored) == ["a": "1", "b": "2", "createdAt": "old"])
        #expect(write.apply(to: nil) == ["b": "2", "createdAt": "new"])
    }

    @Test("without merge, fields not named are dropped")
    func replace() {
        let write = DocumentWrite.set(path, ["b": "2", "createdAt": .valueIfAbsent("new")], merge: false)
        #expect(write.apply(to: ["a": "1", "createdAt": "old"]) == ["b": "2", "createdAt": "old"])
    }

    @Test("increments add to a number, start from 0, and stop at their floor")
    func increments() {
        let up = DocumentWrite.set(path, ["n": .increment(1, floor: nil)])
        #expect(up.apply(to: nil) == ["n": .number(1)])
        #expect(up.apply(to: ["n": .number(2)]) == ["n": .number(3)])
        #expect(up.apply(to: ["n": "text"]) == ["n": .number(1)])
        let down = DocumentWrite.set(path, ["n": .increment(-1, floor: 0)])
        #expect(down.apply(to: ["n": .number(1)]) == ["n": .number(0)])
        #expect(down.apply(to: ["n": .number(0)]) == ["n": .number(0)])
    }

    @Test("array union adds what is missing, array remove takes out every copy; both safe to repeat")
    func arrays() {
        let add = DocumentWrite.set(path, ["a": .arrayUnion(["x", "y"])])
        #expect(add.apply(to: nil) == ["a": ["x", "y"]])
        #expect(add.apply(to: ["a": ["y", "z"]]) == ["a": ["y", "z", "x"]])
        #expect(add.apply(to: add.apply(to: nil)) == ["a": ["x", "y"]])
        #expect(add.apply(to: ["a": 3]) == ["a": ["x", "y"]], "not an array: replaced")
        let remove = DocumentWrite.set(path, ["a": .arrayRemove(["x"])])
        #expect(remove.apply(to: ["a": ["x", "y", "x"]]) == ["a": ["y"]])
        #expect(remove.apply(to: remove.apply(to: ["a": ["x", "y"]])) == ["a": ["y"]])
        #expect(remove.apply(to: [:]) == ["a": []])
    }

    @Test("preconditions")
    func preconditions() {
        let exists = DocumentWrite.delete(path, if: .exists)
        #expect(exists.isAllowed(on: [:]))
        #expect(!exists.isAllowed(on: nil))
        let matching = DocumentWrite.delete(path, if: .fieldEquals("token", "t1"))
        #expect(matching.isAllowed(on: ["token": "t1"]))
        #expect(!matching.isAllowed(on: ["token": "t2"]))
        #expect(!matching.isAllowed(on: nil))
    }

    @Test(
        "path segments follow Firestore's id rules",
        arguments: [
            ("abc", true), ("a b", true), ("__x", true), ("x__", true), ("___", true),
            ("", false), (".", false), ("..", false), ("a/b", false), ("__x__", false), ("____", false),
        ]
    )
    func segments(segment: String, valid: Bool) {
        #expect(DocumentPath.isValidSegment(segment) == valid)
    }
}
