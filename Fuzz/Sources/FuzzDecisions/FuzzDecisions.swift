import PushgateFuzzing

/// libFuzzer's entry: one input read as a decision, a hook's answer and a pin file (``DecisionFuzzing``).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    DecisionFuzzing.check(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
