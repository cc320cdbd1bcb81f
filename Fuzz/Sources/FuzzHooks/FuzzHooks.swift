import PushgateFuzzing

/// libFuzzer's entry: one input read as a hook event and as a transcript (``HookFuzzing``).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    HookFuzzing.check(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
