import PushgateFuzzing

/// libFuzzer's entry: any bytes, as a dump line and as a Firestore export (``DumpFuzzing``).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    DumpFuzzing.check(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
