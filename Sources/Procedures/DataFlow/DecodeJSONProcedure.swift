import Foundation

/// A procedure that decodes its input, JSON data, into a value with a `JSONDecoder`.
///
/// ```swift
/// let decode = DecodeJSONProcedure<Settings> { decoder in decoder.dateDecodingStrategy = .iso8601 }
/// decode.injectResult(from: download)
/// ```
///
/// Each run uses a new decoder, which `configure` sets up, so the procedure shares no
/// mutable decoder between threads. A decoding error (a `DecodingError`) fails it; no input
/// fails it with ``ProcedureError/missingInput(name:)``.
public final class DecodeJSONProcedure<Value: Decodable & Sendable>: ResultProcedure<Value>, InputProcedure,
    @unchecked Sendable
{
    // @unchecked: `input` is written before execute() (directly, or by the injection's
    // will-execute observer) and read by execute(); `configure` is immutable.
    private let configure: @Sendable (JSONDecoder) -> Void

    /// The JSON to decode; set it directly or inject it.
    public var input: Data?

    /// Decodes `input` with a decoder that `configure` sets up (default: as it comes).
    public init(input: Data? = nil, configure: @escaping @Sendable (JSONDecoder) -> Void = { _ in }) {
        self.input = input
        self.configure = configure
        super.init()
    }

    /// Decodes the input.
    public override func execute() {
        finish(transforming: input) { input in
            let decoder = JSONDecoder()
            configure(decoder)
            return try decoder.decode(Value.self, from: input)
        }
    }
}
