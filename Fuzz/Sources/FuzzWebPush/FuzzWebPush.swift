import PushgateFuzzing

/// libFuzzer's entry: one registration, stored subscription, host or record (``WebPushFuzzing``).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    WebPushFuzzing.check(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
