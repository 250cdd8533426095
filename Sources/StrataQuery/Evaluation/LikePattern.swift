import StrataSupport

/// A `LIKE` glob compiled for matching in time linear in the text: `*` matches any run of
/// characters, `?` exactly one, any other character itself.
///
/// The pattern's k characters other than `*` are positions 1…k of an automaton whose states are
/// the bits of a word array (the shift-and method): bit i is set while the text read so far can
/// end with the first i of them matched, and a `*` after the i-th keeps bit i set whatever comes
/// next. Each text character shifts the bits and masks them with the positions that character
/// matches, so a text of n characters costs n · ⌈(k + 1) / 64⌉ word operations whatever the
/// pattern, where backtracking after each `*` costs up to n · k.
struct LikePattern {
    /// 64-bit words per state.
    private let words: Int
    /// Where in ``masks`` each ASCII character's mask starts (0: the mask of a character the
    /// pattern does not name).
    private let asciiMaskStart: [Int]
    /// Where each other character the pattern names has its mask.
    private let otherMaskStart: [Unicode.Scalar: Int]
    /// Per character, `words` words: the positions it may take (its own and every `?`); the
    /// first mask is that of a character the pattern does not name (only the `?` positions).
    private let masks: [UInt64]
    /// The states a `*` keeps (bit i: a `*` follows the i-th character).
    private let loops: [UInt64]
    /// The accepting state's word and bit (all k characters matched).
    private let acceptWord: Int
    private let acceptBit: UInt64
    /// Whether the pattern ends with `*`: once accepting, it accepts whatever follows.
    private let endsWithStar: Bool

    /// Compiles `pattern`.
    ///
    /// - Complexity: O(k · ⌈k / 64⌉) for k characters.
    init(_ pattern: some Sequence<Unicode.Scalar>) {
        var symbols: [Unicode.Scalar] = []
        var starAfter: [Int] = []
        for scalar in pattern {
            if scalar == "*" {
                if starAfter.last != symbols.count { starAfter.append(symbols.count) }
            } else {
                symbols.append(scalar)
            }
        }
        let words = (symbols.count + 1 + 63) / 64
        self.words = words
        func set(_ bit: Int, in array: inout [UInt64], at start: Int) {
            array[start + bit / 64] |= 1 << UInt64(bit % 64)
        }
        var loops = [UInt64](repeating: 0, count: words)
        for position in starAfter { set(position, in: &loops, at: 0) }
        // The `?` positions, which every character may take.
        var anyMask = [UInt64](repeating: 0, count: words)
        for (index, symbol) in symbols.enumerated() where symbol == "?" { set(index + 1, in: &anyMask, at: 0) }
        var masks = anyMask
        var asciiMaskStart = [Int](repeating: 0, count: 128)
        var otherMaskStart: [Unicode.Scalar: Int] = [:]
        for (index, symbol) in symbols.enumerated() where symbol != "?" {
            var start = symbol.isASCII ? asciiMaskStart[Int(symbol.value)] : otherMaskStart[symbol] ?? 0
            if start == 0 {
                start = masks.count
                masks += anyMask
                if symbol.isASCII { asciiMaskStart[Int(symbol.value)] = start } else { otherMaskStart[symbol] = start }
            }
            set(index + 1, in: &masks, at: start)
        }
        self.masks = masks
        self.loops = loops
        self.asciiMaskStart = asciiMaskStart
        self.otherMaskStart = otherMaskStart
        acceptWord = symbols.count / 64
        acceptBit = 1 << UInt64(symbols.count % 64)
        endsWithStar = starAfter.last == symbols.count
    }

    /// Whether `text` matches the whole pattern.
    ///
    /// Polls ``CPUDeadline`` every 65,536 characters and answers false once it passed (the
    /// caller discards a computation over its deadline).
    ///
    /// - Complexity: O(n · ⌈(k + 1) / 64⌉) for n characters of text and k of the pattern.
    func matches(_ text: some Sequence<Unicode.Scalar>) -> Bool {
        var state = [UInt64](repeating: 0, count: words)
        state[0] = 1
        var read = 0
        for scalar in text {
            read &+= 1
            if read & 0xFFFF == 0, CPUDeadline.hasPassed { return false }
            if endsWithStar, state[acceptWord] & acceptBit != 0 { return true }
            let start = scalar.isASCII ? asciiMaskStart[Int(scalar.value)] : otherMaskStart[scalar] ?? 0
            var carry: UInt64 = 0
            var alive: UInt64 = 0
            for word in 0..<words {
                let old = state[word]
                let next = (((old << 1) | carry) & masks[start + word]) | (old & loops[word])
                carry = old >> 63
                state[word] = next
                alive |= next
            }
            if alive == 0 { return false }
        }
        return state[acceptWord] & acceptBit != 0
    }
}
