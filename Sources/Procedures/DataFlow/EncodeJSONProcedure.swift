import Foundation

/// A procedure that encodes its input as JSON with a `JSONEncoder`.
///
/// ```swift
/// let encode = EncodeJSONProcedure<Settings> { encoder in encoder.outputFormatting = .sortedKeys }
/// encode.injectResult(from: loadSettings)
/// ```
///
/// Each run uses a new encoder, which `configure` sets up (date and key strategies, output
/// formatting…), so the procedure shares no mutable encoder between threads. An encoding
/// error fails it; no input fails it with ``ProcedureError/missingInput(name:)``.
public final class EncodeJSONProcedure<Value: Encodable & Sendable>: ResultProcedure<Data>, InputProcedure,
    @unchecked Sendable
{
    // @unchecked: `input` is written before execute() (directly, or by the injection's
    // will-execute observer) and read by execute(); `configure` is immutable.
    private let configure: @Sendable (JSONEncoder) -> Void

    /// The value to encode; set it directly or inject it.
    public var input: Value?

    /// Encodes `input` with an encoder that `configure` sets up (default: as it comes).
    public init(input: Value? = nil, configure: @escaping @Sendable (JSONEncoder) -> Void = { _ in }) {
        self.input = input
        self.configure = configure
        super.init()
    }

    /// Encodes the input.
    public override func execute() {
        finish(transforming: input) { input in
            let encoder = JSONEncoder()
            configure(encoder)
            return try encoder.encode(input)
        }
    }
}
