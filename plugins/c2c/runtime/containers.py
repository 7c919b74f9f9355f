"""Java's collections where Python's differ: map entries, hash order, iterators, Collectors, tree navigation."""

import bisect

__all__ = [
    "SimpleEntry", "hash_keys", "JavaIterator", "group_by", "partition_by", "to_map", "TreeMap", "TreeSet",
    "tree_floor", "tree_lower", "tree_ceiling", "tree_higher", "tree_first", "tree_last", "tree_poll_first",
    "tree_poll_last",
]  # fmt: skip


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


def partition_by(items, test):
    parts = {False: [], True: []}
    for item in items:
        parts[bool(test(item))].append(item)
    return parts


def to_map(items, key, value):
    return {key(item): value(item) for item in items}


# TreeMap / TreeSet: a dict / set that also keeps its keys in order (SortedKeys), so floor / ceiling / first /
# pollFirst take O(sqrt n) as Java's take O(log n); every mutating method keeps the order up to date
class SortedKeys:
    LOAD = 512

    def __init__(self, keys=()):
        keys = sorted(keys)
        self.buckets = [keys[i : i + self.LOAD] for i in range(0, len(keys), self.LOAD)]
        self.maxes = [bucket[-1] for bucket in self.buckets]

    def add(self, key):
        if not self.buckets:
            self.buckets.append([key])
            self.maxes.append(key)
            return
        i = min(bisect.bisect_left(self.maxes, key), len(self.maxes) - 1)
        bucket = self.buckets[i]
        bisect.insort(bucket, key)
        self.maxes[i] = bucket[-1]
        if len(bucket) > 2 * self.LOAD:
            self.buckets[i : i + 1] = [bucket[: self.LOAD], bucket[self.LOAD :]]
            self.maxes[i : i + 1] = [bucket[self.LOAD - 1], bucket[-1]]

    def remove(self, key):
        i = bisect.bisect_left(self.maxes, key)
        bucket = self.buckets[i]
        del bucket[bisect.bisect_left(bucket, key)]
        if bucket:
            self.maxes[i] = bucket[-1]
        else:
            del self.buckets[i], self.maxes[i]

    def floor(self, key, strict=False):
        i = bisect.bisect_left(self.maxes, key)
        if i < len(self.buckets):
            bucket = self.buckets[i]
            j = bisect.bisect_left(bucket, key) if strict else bisect.bisect_right(bucket, key)
            if j:
                return bucket[j - 1]
        return self.buckets[i - 1][-1] if i else None

    def ceiling(self, key, strict=False):
        i = bisect.bisect_right(self.maxes, key) if strict else bisect.bisect_left(self.maxes, key)
        if i == len(self.buckets):
            return None
        bucket = self.buckets[i]
        return bucket[bisect.bisect_right(bucket, key) if strict else bisect.bisect_left(bucket, key)]

    def first(self):
        return self.buckets[0][0]

    def last(self):
        return self.buckets[-1][-1]


class TreeMap(dict):
    def __init__(self, items=()):
        super().__init__(items)
        self.tree = SortedKeys(self)

    def __setitem__(self, key, value):
        if key not in self:
            self.tree.add(key)
        super().__setitem__(key, value)

    def __delitem__(self, key):
        super().__delitem__(key)
        self.tree.remove(key)

    def pop(self, key, *default):
        if key in self:
            self.tree.remove(key)
        return super().pop(key, *default)

    def popitem(self):
        key, value = super().popitem()
        self.tree.remove(key)
        return key, value

    def setdefault(self, key, default=None):
        if key not in self:
            self.tree.add(key)
        return super().setdefault(key, default)

    def update(self, *items, **named):
        super().update(*items, **named)
        self.tree = SortedKeys(self)

    def __ior__(self, other):
        self.update(other)
        return self

    def clear(self):
        super().clear()
        self.tree = SortedKeys()

    def copy(self):
        return TreeMap(self)


class TreeSet(set):
    def __init__(self, items=()):
        super().__init__(items)
        self.tree = SortedKeys(self)

    def add(self, key):
        if key not in self:
            super().add(key)
            self.tree.add(key)

    def discard(self, key):
        if key in self:
            super().discard(key)
            self.tree.remove(key)

    def remove(self, key):  # Java's: False when absent
        if key not in self:
            return False
        self.discard(key)
        return True

    def pop(self):
        key = super().pop()
        self.tree.remove(key)
        return key

    def clear(self):
        super().clear()
        self.tree = SortedKeys()

    def update(self, *others):
        super().update(*others)
        self.tree = SortedKeys(self)

    def difference_update(self, *others):
        super().difference_update(*others)
        self.tree = SortedKeys(self)

    def intersection_update(self, *others):
        super().intersection_update(*others)
        self.tree = SortedKeys(self)

    def symmetric_difference_update(self, other):
        super().symmetric_difference_update(other)
        self.tree = SortedKeys(self)

    def __ior__(self, other):
        self.update(other)
        return self

    def __isub__(self, other):
        self.difference_update(other)
        return self

    def __iand__(self, other):
        self.intersection_update(other)
        return self

    def __ixor__(self, other):
        self.symmetric_difference_update(other)
        return self

    def copy(self):
        return TreeSet(self)

    def __repr__(self):
        return repr(set(self))


# a TreeMap's / TreeSet's navigation (None where Java returns null); a plain dict or set (a tree made
# another way) is scanned
def tree_floor(table, key):
    if isinstance(table, (TreeMap, TreeSet)):
        return table.tree.floor(key)
    return max((k for k in table if k <= key), default=None)


def tree_lower(table, key):
    if isinstance(table, (TreeMap, TreeSet)):
        return table.tree.floor(key, strict=True)
    return max((k for k in table if k < key), default=None)


def tree_ceiling(table, key):
    if isinstance(table, (TreeMap, TreeSet)):
        return table.tree.ceiling(key)
    return min((k for k in table if k >= key), default=None)


def tree_higher(table, key):
    if isinstance(table, (TreeMap, TreeSet)):
        return table.tree.ceiling(key, strict=True)
    return min((k for k in table if k > key), default=None)


def tree_first(table):
    return table.tree.first() if isinstance(table, (TreeMap, TreeSet)) else min(table)


def tree_last(table):
    return table.tree.last() if isinstance(table, (TreeMap, TreeSet)) else max(table)


def tree_poll_first(table):
    if not table:
        return None
    key = tree_first(table)
    table.discard(key)
    return key


def tree_poll_last(table):
    if not table:
        return None
    key = tree_last(table)
    table.discard(key)
    return key
