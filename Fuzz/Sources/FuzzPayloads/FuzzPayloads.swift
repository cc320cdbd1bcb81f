import PushgateFuzzing

/// libFuzzer's entry: one notification's texts (``PayloadFuzzing``).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    PayloadFuzzing.check(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
