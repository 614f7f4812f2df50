import Foundation
import ProceduresTesting
import XCTest

// The code of Documentation/WritingProcedures.md, Cancellation.md and GroupsAndDelays.md,
// verbatim (DocumentationSnippetsTests checks that every snippet appears here or in another
// test file), compiled and run.

// MARK: WritingProcedures.md

final class Greeting: Procedure, @unchecked Sendable {
    let who: String
    private(set) var message: String?

    init(who: String) {
        self.who = who
        super.init()
        name = "Greeting(\(who))"
    }

    override func execute() {
        message = "Hello, \(who)!"
        finish()
    }
}

final class ReadFile: Procedure, @unchecked Sendable {
    let url: URL
    private(set) var contents: Data?

    init(url: URL) {
        self.url = url
        super.init()
    }

    override func execute() {
        DispatchQueue.global().async { [self] in
            do {
                contents = try Data(contentsOf: url)
                finish()
            } catch {
                finish(withError: error)
            }
        }
    }
}

final class Crawl: Procedure, @unchecked Sendable {
    override func execute() {
        do {
            try produce(BlockProcedure { print("follow-up work") })
            finish()
        } catch {
            finish(withError: error)
        }
    }
}

final class GreetingTests: XCTestCase {
    func testGreets() {
        let greeting = Greeting(who: "tests")
        wait(for: greeting)
        assertProcedureFinished(greeting)
        XCTAssertEqual(greeting.message, "Hello, tests!")
    }
}

// MARK: Cancellation.md

// Not responsive to cancellation: use DelayProcedure for real delays.
final class SlowDelay: Procedure, @unchecked Sendable {
    var timer: DispatchSourceTimer?

    override func execute() {
        timer = DispatchSource.makeTimerSource(flags: [], queue: .global())
        timer?.setEventHandler { [weak self] in self?.finish() }
        timer?.schedule(deadline: .now() + .seconds(60))
        timer?.resume()
    }
}

final class ResponsiveDelay: Procedure, @unchecked Sendable {
    var timer: DispatchSourceTimer?

    override init() {
        super.init()
        addDidCancelBlockObserver { procedure, _ in
            // Cancelling the timer means its handler will never finish us: finish here.
            procedure.timer?.cancel()
            procedure.finish()
        }
    }

    override func execute() {
        timer = DispatchSource.makeTimerSource(flags: [], queue: .global())
        timer?.setEventHandler { [weak self] in self?.finish() }
        timer?.schedule(deadline: .now() + .seconds(60))
        timer?.resume()
    }
}

final class CancellableWait: Procedure, @unchecked Sendable {
    private var work: DispatchWorkItem?

    override func execute() {
        let work = DispatchWorkItem { [weak self] in self?.finish() }
        self.work = work
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: work)
    }

    override func procedureDidCancel(withErrors errors: [any Error]) {
        work?.cancel()
        finish()
    }
}

final class CountPrimes: Procedure, @unchecked Sendable {
    private(set) var found = 0

    override func execute() {
        var candidate = 2
        while !isCancelled && candidate < 10_000_000 {
            if isPrime(candidate) { found += 1 }
            candidate += 1
        }
        finish()
    }
}

/// Trial division: deliberately slow, so that `CountPrimes` runs long enough to be cancelled.
func isPrime(_ number: Int) -> Bool {
    guard number >= 2 else { return false }
    var divisor = 2
    while divisor * divisor <= number {
        if number % divisor == 0 { return false }
        divisor += 1
    }
    return true
}

// MARK: GroupsAndDelays.md

struct OptionalStepFailed: Error {}

final class TolerantGroup: GroupProcedure, @unchecked Sendable {
    override func transformChildErrors(_ errors: [any Error], from child: Procedure) -> [any Error] {
        // Failures of optional steps are not failures of the group.
        errors.filter { !($0 is OptionalStepFailed) }
    }
}

final class Backup: GroupProcedure, @unchecked Sendable {
    let paths: [String]

    init(paths: [String]) {
        self.paths = paths
        super.init()
    }

    override func execute() {
        addChildren(paths.map { path in BlockProcedure { print("copy", path) } })
        super.execute()
    }
}

final class ProcedureGuideExamplesTests: XCTestCase {
    private func barrierExample() {
        let queue = ProcedureQueue()
        let read = ReadFile(url: URL(fileURLWithPath: "/etc/hostname"))
        let greet = Greeting(who: "reader")
        greet.addDependency(read)
        queue.addOperations([read, greet], waitUntilFinished: false)
        queue.addBarrierBlock {
            print("read and greet have finished: \(read.isFinished && greet.isFinished)")
        }
        let barrierSaw = LockedBox<Bool?>(nil)
        let done = expectation(description: "a later operation ran after the barrier")
        queue.addOperation(BlockOperation {
            barrierSaw.mutate { $0 = read.isFinished && greet.isFinished }
            done.fulfill()
        })
        wait(for: [done], timeout: 10)
        XCTAssertEqual(barrierSaw.value, true)
    }

    func testWritingProceduresExamples() throws {
        let queue = ProcedureQueue()
        let read = ReadFile(url: URL(fileURLWithPath: "/etc/hostname"))
        let greet = Greeting(who: "reader")
        greet.addDependency(read)
        queue.addOperations([read, greet], waitUntilFinished: false)
        wait(for: read, greet)
        XCTAssertTrue(read.isFinished)
        assertProcedureFinished(greet)

        barrierExample()

        let compute = BlockProcedure { print(6 * 7) }
        let fetch = BlockProcedure(asyncBlock: { procedure in
            DispatchQueue.global().async { procedure.finish() }
        })
        queue.addOperations([compute, fetch], waitUntilFinished: false)
        wait(for: compute, fetch)
        assertProcedureFinished(fetch)

        let job = Greeting(who: "observer")
        job.addWillExecuteBlockObserver { procedure in
            print("starting \(procedure.who)")
        }
        job.addDidFinishBlockObserver { procedure, errors in
            print(procedure.message ?? "no message", errors)
        }
        queue.addOperation(job)
        wait(for: job)
        XCTAssertEqual(job.message, "Hello, observer!")

        let crawl = Crawl()
        let group = GroupProcedure(operations: [crawl])
        wait(for: group)
        assertProcedureFinished(group)
        XCTAssertEqual(group.children.count, 2, "the produced procedure joined the group")
    }

    func testCancellationExamples() {
        for procedure in [ResponsiveDelay(), CancellableWait()] as [Procedure] {
            let executing = expectation(description: "executing")
            procedure.addDidExecuteBlockObserver { _ in executing.fulfill() }
            ProcedureQueue().addOperation(procedure)
            wait(for: [executing], timeout: 10)
            procedure.cancel()
            wait(for: procedure)  // well before the 30 or 60 s timer
            assertProcedureCancelled(procedure)
        }
        XCTAssertFalse(SlowDelay().isFinished)
    }

    func testGroupsAndDelaysExamples() {
        let queue = ProcedureQueue()
        let download = BlockProcedure { print("download") }
        let parse = BlockProcedure { print("parse") }
        parse.addDependency(download)
        let group = GroupProcedure(operations: [download, parse])
        group.maxConcurrentOperationCount = 2
        group.addDidFinishBlockObserver { _, errors in print("group finished", errors) }
        queue.addOperation(group)
        wait(for: group)
        assertProcedureFinished(group)

        let tolerant = TolerantGroup(operations: [BlockProcedure { throw OptionalStepFailed() }])
        wait(for: tolerant)
        assertProcedureFinished(tolerant)

        let fragile = GroupProcedure()
        let step = BlockProcedure { throw OptionalStepFailed() }
        step.addDidFinishBlockObserver { [weak fragile] _, errors in
            if !errors.isEmpty { fragile?.cancel(withErrors: errors) }
        }
        fragile.addChild(step)
        wait(for: fragile)
        assertProcedureCancelled(fragile, withErrors: true)

        let backup = Backup(paths: ["a", "b"])
        wait(for: backup)
        XCTAssertEqual(backup.children.count, 2)

        let backoff = DelayProcedure(by: 0.25)
        let retry = BlockProcedure { print("retrying") }
        retry.addDependency(backoff)
        queue.addOperations([backoff, retry], waitUntilFinished: false)
        wait(for: backoff, retry)
        XCTAssertTrue(backoff.isFinished)
        assertProcedureFinished(retry)
    }
}
