"""String and number semantics of Java that Python's builtins do not share."""

__all__ = [
    "java_compare", "string_hash", "java_split", "half_up", "java_div", "java_mod", "java_int", "java_long",
]  # fmt: skip


# String.compareTo: the first differing chars' difference, else the lengths' (programs print or sum it)
def java_compare(a, b):
    for x, y in zip(a, b):  # noqa: B905 - the shorter string ends the walk
        if x != y:
            return ord(x) - ord(y)
    return len(a) - len(b)


# String.hashCode: 31 * h + c over the chars, a signed 32-bit int
def string_hash(s):
    h = 0
    for ch in s:
        h = (31 * h + ord(ch)) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


# String.split drops the trailing empty strings (all of them: ",,".split(",") is empty; "" stays [""])
def java_split(parts):
    if parts == [""]:
        return parts
    while parts and parts[-1] == "":
        parts.pop()
    return parts


# printf's %.Nf: Java rounds half up from the shortest decimal (0.15 -> 0.2, 2.675 -> 2.68); Python's %
# rounds the binary value (0.1, 2.67). The rounded value is formatted by % as it stands.
def half_up(x, digits):
    from decimal import Decimal, ROUND_HALF_UP  # noqa: I001 - the order the programs have always carried

    if isinstance(x, float) and (x != x or x in (float("inf"), -float("inf"))):
        return x
    return Decimal(str(x)).quantize(Decimal(1).scaleb(-digits), ROUND_HALF_UP)


# long / and %: Java truncates toward zero (the remainder takes the dividend's sign); exact for any width,
# where int ( a / b ) rounds a long through a double
def java_div(a, b):
    q = a // b
    return q + 1 if q < 0 and q * b != a else q


def java_mod(a, b):
    r = a % b
    return r - b if r and (r < 0) != (a < 0) else r


# (int) / (long) of a double: toward zero, saturated at the type's bounds (infinities too); NaN is 0
def java_int(x):
    if x != x:
        return 0
    return 2147483647 if x >= 2147483647 else -2147483648 if x <= -2147483648 else int(x)


def java_long(x):
    if x != x:
        return 0
    return 2**63 - 1 if x >= 2**63 - 1 else -(2**63) if x <= -(2**63) else int(x)
