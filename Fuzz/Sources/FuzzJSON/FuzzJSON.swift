import PushgateFuzzing

/// libFuzzer's entry: any bytes, parsed by Pushgate and by Foundation (``JSONFuzzing``).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    JSONFuzzing.check(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
