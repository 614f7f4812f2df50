import Foundation

/// libFuzzer's entry point for the pipeline parser and checker (see Fuzz/README.md): any bytes
/// as a pipeline file must give a pipeline or located problems, never a crash, a hang, or a
/// message that is not written for people.
@_cdecl("LLVMFuzzerTestOneInput")
public func pipelineFuzzTarget(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    PipelineFuzzCheck.check(data)
    JSONDifferentialCheck.check(data)
    return 0
}
