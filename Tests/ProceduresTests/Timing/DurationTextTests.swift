import Foundation
import Procedures
import ProceduresSupport
import Testing

/// Durations in the library's messages are rounded for people, by one rule everywhere: three
/// significant digits, whole seconds from 100 s up, no trailing zeros.
@Suite struct DurationTextTests {
    @Test(arguments: [
        (0.19992899894714355, "0.2 s"),
        (0.2, "0.2 s"),
        (1.0, "1 s"),
        (5, "5 s"),
        (12.345, "12.3 s"),
        (99.96, "100 s"),
        (3600, "3600 s"),
        (86_400.4, "86400 s"),
        (0.0004567, "0.000457 s"),
        (0.0009996, "0.001 s"),
        (0, "0 s"),
        (-0.25, "-0.25 s"),
        (.nan, "nan s"),
        (.infinity, "inf s"),
    ] as [(TimeInterval, String)])
    func aDurationReadsToThreeSignificantDigits(seconds: TimeInterval, text: String) {
        #expect(DurationText.seconds(seconds) == text)
    }

    @Test func aTimeoutErrorSaysItsIntervalRounded() {
        #expect(ProcedureError.timedOut(after: 0.19992899894714355).description == "timed out after 0.2 s")
        #expect(ProcedureError.timedOut(after: 30).description == "timed out after 30 s")
    }

    @Test func aDelayIsNamedWithItsIntervalRounded() {
        #expect(DelayProcedure(by: 1.0).name == "Delay(by: 1 s)")
        #expect(DelayProcedure(by: 0.33333333).name == "Delay(by: 0.333 s)")
    }
}
