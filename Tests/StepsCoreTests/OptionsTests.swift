import XCTest
@testable import StepsCore

/// The command line, read in process from the option table, and the help written from it.
final class OptionsTests: XCTestCase {
    private func parse(_ arguments: String...) throws -> Options { try Options.parse(arguments) }

    func testAValueIsTakenApartAttachedOrAfterAnEqualsSign() throws {
        for arguments in [["-j", "4"], ["-j4"], ["--jobs", "4"], ["--jobs=4"]] {
            XCTAssertEqual(try Options.parse(arguments).jobs, 4, "\(arguments)")
        }
        XCTAssertEqual(try parse("--graph=g.dot", "--trace", "t.json", "--logs=L").graphPath, "g.dot")
        XCTAssertEqual(try parse("--timeout=1.5").timeout, 1.5)
        XCTAssertEqual(try parse("--grace", "0").gracePeriod, 0)
        XCTAssertEqual(try parse("--output=prefixed").output, .prefixed)
    }

    func testSwitchesAndThePipelineFile() throws {
        let options = try parse("pipeline.json", "-n", "--plain", "-w", "--version", "-h")
        XCTAssertEqual(options.pipelinePath, "pipeline.json")
        XCTAssertTrue(options.dryRun && options.plain && options.watch && options.showVersion && options.showHelp)
        XCTAssertEqual(try parse(), Options(), "nothing given: the bundled pipeline, defaults")
    }

    func testForceTakesAStepOnlyWhenTheNextWordIsOne() throws {
        XCTAssertEqual(try parse("--force").forced, .all)
        XCTAssertEqual(try parse("--force", "build").forced, .named(["build"]))
        XCTAssertEqual(try parse("--force", "pipeline.json").forced, .all, "a pipeline file is not a step")
        XCTAssertEqual(try parse("--force", "pipeline.json").pipelinePath, "pipeline.json")
        XCTAssertEqual(try parse("--force", "--plain").forced, .all)
        XCTAssertEqual(try parse("--force=a.json", "--force", "b").forced, .named(["a.json", "b"]), "= always names a step")
        XCTAssertEqual(try parse("--force", "a", "--force").forced, .all)
    }

    func testEveryMistakeIsOneLineThatPointsAtTheHelp() {
        let cases: [([String], String)] = [
            (["--frob"], "unknown option '--frob'"),
            (["-x4"], "unknown option '-x4'"),
            (["-nj3"], "unknown option '-nj3'"),
            (["--jobs"], "--jobs needs a value"),
            (["-j0"], "-j needs a whole number from 1 to 1000000, not '0'"),
            (["--jobs=2.5"], "--jobs needs a whole number from 1 to 1000000, not '2.5'"),
            (["--timeout", "0"], "--timeout needs a number of seconds above 0, not '0'"),
            (["--timeout", "inf"], "--timeout needs a number of seconds above 0, not 'inf'"),
            (["--grace", "-1"], "--grace needs a number of seconds of at least 0, not '-1'"),
            (["--output", "loud"], "--output needs one of prefixed, grouped, failed, quiet, not 'loud'"),
            (["--plain=yes"], "--plain takes no value"),
            (["--force="], "--force= needs a step name"),
            (["-"], "reading the pipeline from standard input is not supported; give a file"),
            (["a.json", "b.json"], "only one pipeline file may be given ('a.json', then 'b.json')"),
        ]
        for (arguments, message) in cases {
            do {
                _ = try Options.parse(arguments)
                XCTFail("\(arguments) was accepted")
            } catch {
                XCTAssertEqual(error.lines, ["steps: \(message) (see steps --help)"], "\(arguments)")
                XCTAssertEqual(error.exitStatus, 2)
            }
        }
    }

    func testTheHelpListsEveryOptionOfTheTableAndFitsTheTerminal() {
        let usage = Options.usage
        for option in CommandOption.all {
            XCTAssertTrue(usage.contains("\n  " + option.synopsis + " "), "\(option.synopsis) is missing from the help")
        }
        XCTAssertTrue(usage.contains("  -j, --jobs N        steps run at once"), usage)
        XCTAssertTrue(usage.contains("  --force [STEP]      "), usage)
        for line in usage.split(separator: "\n") { XCTAssertLessThanOrEqual(line.count, 96, String(line)) }
        let spellings = CommandOption.all.flatMap(\.names)
        XCTAssertEqual(Set(spellings).count, spellings.count, "every spelling names one option")
    }

    func testWrapBreaksAtSpacesWithinTheWidth() {
        XCTAssertEqual(Options.wrap("aa bb cc dd", width: 5), ["aa bb", "cc dd"])
        XCTAssertEqual(Options.wrap("a-very-long-word b", width: 4), ["a-very-long-word", "b"])
    }
}
