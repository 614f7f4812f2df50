import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Procedures

/// The delegate of a ``ProgressReportingSession``: counts each task's bytes and hands its
/// answer to the completion handler.
final class TransferDelegate: NSObject, URLSessionDataDelegate, URLSessionDownloadDelegate,
    @unchecked Sendable
{
    // @unchecked: `records` is guarded by `lock`; each record's fields too.
    enum Direction {
        case receiving
        /// Sending a body of this many bytes.
        case sending(Int64)
    }

    enum Completion {
        case data(@Sendable (Data?, URLResponse?, (any Error)?) -> Void)
        case file(@Sendable (URL?, URLResponse?, (any Error)?) -> Void)
    }

    private struct Record {
        let counted: CountedTask
        let direction: Direction
        let completion: Completion
        var data = Data()
        var file: URL?
    }

    private let lock = NSLock()
    private var records: [Int: Record] = [:]

    func track(_ task: URLSessionTask, direction: Direction, completion: Completion) -> any NetworkTask {
        let expected: Int64
        switch direction {
        case .receiving: expected = -1
        case .sending(let bytes): expected = bytes
        }
        let counted = CountedTask(task, expected: expected)
        lock.withLock { records[task.taskIdentifier] = Record(counted: counted, direction: direction, completion: completion) }
        return counted
    }

    private func record(of task: URLSessionTask) -> Record? {
        lock.withLock { records[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        if let record = record(of: dataTask), case .receiving = record.direction {
            record.counted.count(0, of: response.expectedContentLength)
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let counted = lock.withLock { () -> (CountedTask, Int64)? in
            guard var record = records[dataTask.taskIdentifier] else { return nil }
            record.data.append(data)
            records[dataTask.taskIdentifier] = record
            guard case .receiving = record.direction else { return nil }
            return (record.counted, Int64(record.data.count))
        }
        if let (task, received) = counted { task.count(received, of: nil) }
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {
        record(of: downloadTask)?.counted.count(totalBytesWritten, of: totalBytesExpectedToWrite)
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        // The session deletes `location` when this returns; the handler runs later, once the
        // task completes, so the file is kept until then.
        let kept = FileManager.default.temporaryDirectory.appendingPathComponent("counted-download-\(UUID().uuidString)")
        let moved = (try? FileManager.default.moveItem(at: location, to: kept)) != nil
        lock.withLock { records[downloadTask.taskIdentifier]?.file = moved ? kept : nil }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        guard let record = record(of: task), case .sending(let body) = record.direction else { return }
        record.counted.count(totalBytesSent, of: totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : body)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let record = lock.withLock({ records.removeValue(forKey: task.taskIdentifier) }) else { return }
        switch record.completion {
        case .data(let handler):
            handler(error == nil ? record.data : nil, task.response, error)
        case .file(let handler):
            handler(error == nil ? record.file : nil, task.response, error)
            if let file = record.file { try? FileManager.default.removeItem(at: file) }
        }
    }
}
