# Helpers the realm-suite tools share for reading Swift source as lines.

def block_end(lines, start):
    """The index of the line that closes the brace block opened at or after `start` (braces
    counted naively: enough for Realm's test files, which keep braces out of strings where it
    matters); the last line when the block never closes."""
    depth = 0; started = False; j = start
    while j < len(lines):
        for ch in lines[j]:
            if ch == '{': depth += 1; started = True
            elif ch == '}': depth -= 1
        if started and depth == 0: return j
        j += 1
    return len(lines) - 1
