import PushgateFuzzing

/// libFuzzer's entry: a server's bytes to the HTTP/2 client (``FrameFuzzing``).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FrameFuzzing.check(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
