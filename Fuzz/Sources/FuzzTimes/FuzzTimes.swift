import PushgateFuzzing

/// libFuzzer's entry: one text read as a time and written back (``TimeFuzzing``).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    TimeFuzzing.check(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
