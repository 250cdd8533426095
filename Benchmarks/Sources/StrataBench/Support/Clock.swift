import Dispatch

/// Monotonic time in nanoseconds.
func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Seconds elapsed since `start`.
func seconds(since start: UInt64) -> Double { Double(now() - start) / 1e9 }

/// Microseconds from `start` to `end` (both from `now()`).
func micros(_ start: UInt64, _ end: UInt64) -> Double { Double(end &- start) / 1e3 }

/// The value at `fraction` (0...1) of sorted `values`.
func percentile(_ values: [Double], _ fraction: Double) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
}

/// The median of `values`.
func median(_ values: [Double]) -> Double { percentile(values, 0.5) }
