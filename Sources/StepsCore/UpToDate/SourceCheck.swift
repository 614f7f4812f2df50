import Foundation
import Procedures

/// The hashes of one step's sources, found by procedures on a shared queue whose width bounds
/// how many files are read at once, whatever number of steps are being checked:
///
/// - one `ResultProcedure` walks the step's directory for the files its patterns match;
/// - then the files, in chunks (a procedure costs about as much as a `stat`, so one per file
///   would double the cost of a check that reads nothing), each chunk a `ResultProcedure` that
///   stats its files and hashes those whose stamps it cannot trust;
/// - and a `BlockProcedure` that depends on every chunk gathers them, in path order.
///
/// Cancelling the queue's procedures (a stopped run) ends the check: `completion` gets nil.
enum SourceCheck {
    struct Hashes: Sendable {
        /// Each file (relative path as the patterns spell it) with its content hash, by path.
        var files: [(path: String, hash: UInt64)]
        var missing: [String]
        /// Files that were listed but could not be read, with why: they make the step run.
        var unreadable: [(path: String, reason: String)]
        /// Files whose content differs from what the state file recorded.
        var changed: [String]
    }

    /// Files per chunk: at least this many, and about four chunks per unit of width.
    static func chunkSize(files: Int, width: Int) -> Int {
        max(64, (files + 4 * width - 1) / max(1, 4 * width))
    }

    static func run(
        patterns: GlobPatternList, base: String, cache: FileHashCache, trust: Bool, queue: ProcedureQueue,
        name: String, completion: @escaping @Sendable (Hashes?) -> Void
    ) {
        let list = ResultProcedure<GlobExpansion> { GlobExpansion(patterns, in: base) }
        list.name = "\(name) · list sources"
        list.addDidFinishBlockObserver { list, _ in
            guard let expansion = list.output, !list.isCancelled else { return completion(nil) }
            hash(expansion, base: base, cache: cache, trust: trust, queue: queue, name: name, completion: completion)
        }
        queue.addOperation(list)
    }

    private static func hash(
        _ expansion: GlobExpansion, base: String, cache: FileHashCache, trust: Bool, queue: ProcedureQueue, name: String,
        completion: @escaping @Sendable (Hashes?) -> Void
    ) {
        let files = expansion.files
        let size = chunkSize(files: files.count, width: queue.maxConcurrentOperationCount)
        let chunks = stride(from: 0, to: files.count, by: size).map { start in
            let paths = Array(files[start..<min(files.count, start + size)])
            let chunk = ResultProcedure<[FileHashCache.Lookup]> {
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
                defer { buffer.deallocate() }
                return paths.map { path in
                    cache.hash(of: path.hasPrefix("/") ? path : base + "/" + path, trust: trust, buffer: buffer)
                }
            }
            chunk.name = "\(name) · hash \(start + 1)-\(start + paths.count)"
            return chunk
        }
        let gather = BlockProcedure {}
        gather.name = "\(name) · gather hashes"
        for chunk in chunks { gather.addDependency(chunk) }
        gather.addDidFinishBlockObserver { gather, _ in
            var result = Hashes(files: [], missing: expansion.missing, unreadable: [], changed: [])
            result.files.reserveCapacity(files.count)
            var index = 0
            for chunk in chunks {
                guard let lookups = chunk.output, !gather.isCancelled else { return completion(nil) }
                for lookup in lookups {
                    let path = files[index]
                    index += 1
                    switch lookup {
                    case .hashed(let hash):
                        result.files.append((path, hash))
                        let absolute = path.hasPrefix("/") ? path : base + "/" + path
                        if cache.changedSinceLoad(absolute, hash: hash) != false { result.changed.append(path) }
                    case .unreadable(let reason):
                        result.unreadable.append((path, reason))
                    }
                }
            }
            completion(result)
        }
        queue.addOperations(chunks + [gather], waitUntilFinished: false)
    }
}
