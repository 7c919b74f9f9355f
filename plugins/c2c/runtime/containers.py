"""Java's collections where Python's differ: map entries, hash order, iterators, Collectors."""

__all__ = ["SimpleEntry", "hash_keys", "JavaIterator", "group_by", "to_map"]


# AbstractMap.SimpleEntry as a base class: a [key, value] list, as entries index elsewhere (`e [ 0 ]`)
class SimpleEntry(list):
    def __init__(self, key, value):
        super().__init__((key, value))

    def getKey(self):
        return self[0]

    def getValue(self):
        return self[1]

    def setValue(self, value):
        old = self[1]
        self[1] = value
        return old

    def toString(self):
        return str(self[0]) + "=" + str(self[1])

    def __str__(self):
        return self.toString()

    def __hash__(self):
        return hash((self[0], self[1]))


# HashMap / HashSet iterate by bucket: (hash ^ hash >>> 16) & (capacity - 1), capacity a power of two from
# 16 holding 0.75 of it; a bucket in insertion order (of a dict; a set's own order else)
def java_hash(key):
    if isinstance(key, str):
        h = 0
        for ch in key:
            h = (31 * h + ord(ch)) & 0xFFFFFFFF
    elif isinstance(key, bool):
        h = 1231 if key else 1237
    elif isinstance(key, int):
        h = key & 0xFFFFFFFF if -2147483648 <= key < 2147483648 else (key ^ (key >> 32)) & 0xFFFFFFFF
    else:
        return 0
    return h ^ (h >> 16)


def hash_keys(table):
    capacity = 16
    while len(table) > capacity * 3 // 4:
        capacity *= 2
    return sorted(table, key=lambda key: java_hash(key) & (capacity - 1))


# Iterator over a collection: a snapshot walked by index; remove() deletes the last element returned
class JavaIterator:
    def __init__(self, items):
        self.items = items
        self.snapshot = list(items)
        self.at = 0
        self.removed = 0

    def hasNext(self):
        return self.at < len(self.snapshot)

    def next(self):
        self.at += 1
        return self.snapshot[self.at - 1]

    def remove(self):
        if isinstance(self.items, list):
            del self.items[self.at - 1 - self.removed]
            self.removed += 1
        elif isinstance(self.items, dict):
            del self.items[self.snapshot[self.at - 1]]
        else:
            self.items.discard(self.snapshot[self.at - 1])


# Collectors.groupingBy (a list per key, or a count with counting()) and Collectors.toMap
def group_by(items, key, count=False):
    groups = {}
    for item in items:
        k = key(item)
        if count:
            groups[k] = groups.get(k, 0) + 1
        else:
            groups.setdefault(k, []).append(item)
    return groups


def to_map(items, key, value):
    return {key(item): value(item) for item in items}
