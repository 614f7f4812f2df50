/// The version `steps --version` prints: the one place it is written.
enum StepsVersion {
    static let current = "0.1.0"
}
