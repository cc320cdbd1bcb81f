import PushgateFuzzing

/// libFuzzer's entry: one input read as a value and an env file to set it in (``EnvironmentFileFuzzing``).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    EnvironmentFileFuzzing.check(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
