"""The .emb hash index (docs/FORMAT.md, "The hash index"; lib/format/word_index.h): 64-bit
FNV-1a over a word's UTF-8 bytes, home slot the high 64 bits of hash x capacity, linear
probing with wrap-around."""
EMPTY = 0xFFFFFFFF
_MASK = (1 << 64) - 1


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & _MASK
    return h


class WordIndex:
    """Lookups in a file's vocab.index, vocab.offsets and vocab.bytes (numpy views of the
    mapping), read through memoryviews: an element of a memoryview is a Python int at once,
    where a numpy scalar costs a microsecond, and a lookup touches a few."""

    def __init__(self, index, offsets, words):
        self._index, self._offsets, self._words = memoryview(index), memoryview(offsets), memoryview(words)
        self._capacity, self._rows = len(index), len(offsets) - 1

    def find(self, key):
        """The row whose word's UTF-8 bytes are `key`, or -1."""
        index, offsets, words, capacity = self._index, self._offsets, self._words, self._capacity
        slot = (fnv1a64(key) * capacity) >> 64
        for _ in range(capacity):
            row = index[slot]
            if row == EMPTY:
                return -1
            # A row number past the vocabulary (a corrupt file) is no match, as in the C++ reader.
            if row < self._rows and words[offsets[row]:offsets[row + 1]] == key:
                return row
            slot += 1
            if slot == capacity:
                slot = 0
        return -1
