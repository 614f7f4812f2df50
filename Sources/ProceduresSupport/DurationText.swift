import Foundation

/// How the library writes a duration in a message: seconds, rounded for people ("0.2 s", not
/// "0.19992899894714355 s"). Every message that shows a duration goes through here, so that
/// they all round alike.
package enum DurationText {
    /// `interval` in seconds to three significant digits, trailing zeros dropped, and to the
    /// whole second from 100 s up: 0.19992899 → "0.2 s", 1.0 → "1 s", 12.345 → "12.3 s",
    /// 3600 → "3600 s", 0.0004567 → "0.000457 s". NaN and the infinities read "nan s",
    /// "inf s" and "-inf s".
    package static func seconds(_ interval: TimeInterval) -> String {
        "\(number(interval)) s"
    }

    /// The number alone, rounded as for ``seconds(_:)``.
    package static func number(_ interval: TimeInterval) -> String {
        guard interval.isFinite else { return interval.isNaN ? "nan" : (interval < 0 ? "-inf" : "inf") }
        guard interval != 0 else { return "0" }
        // Decimals for three significant digits; none at 100 and above.
        let magnitude = Int(log10(abs(interval)).rounded(.down))
        let decimals = max(0, 2 - magnitude)
        var text = String(format: "%.\(decimals)f", interval)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text == "-0" ? "0" : text
    }
}
