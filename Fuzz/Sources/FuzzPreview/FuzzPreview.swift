import PushgateFuzzing

/// libFuzzer's entry: one reply text (``PreviewFuzzing``).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    PreviewFuzzing.check(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
