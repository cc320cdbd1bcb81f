import PushgateFuzzing

/// libFuzzer's entry: one POST body (``RequestFuzzing``).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    RequestFuzzing.check(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
