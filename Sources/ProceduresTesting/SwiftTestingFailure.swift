import Testing

/// How the Swift Testing helpers fail a test: `message` becomes one issue at `sourceLocation`
/// and the test stops there, as after a failed `#require`. A plain `Issue.record` followed by
/// a thrown error would show the failure twice (the runner records the error too); the error
/// a failed `#require` throws is the one it knows is recorded already.
enum SwiftTestingFailure {
    static func stop(_ message: String, sourceLocation: SourceLocation) throws {
        let waitEndedInTime = false
        try #require(waitEndedInTime, Comment(rawValue: message), sourceLocation: sourceLocation)
    }
}
