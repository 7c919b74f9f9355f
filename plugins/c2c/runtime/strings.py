"""String and number semantics of Java that Python's builtins do not share."""

__all__ = [
    "java_compare", "string_hash", "java_split", "half_up", "java_div", "java_mod", "java_int", "java_long",
    "DecimalFormat", "RoundingMode", "java_sprintf", "TextBuilder",
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


# java.math.RoundingMode: the decimal module's rounding of the same name
class RoundingMode:
    HALF_UP = "ROUND_HALF_UP"
    HALF_EVEN = "ROUND_HALF_EVEN"
    HALF_DOWN = "ROUND_HALF_DOWN"
    UP = "ROUND_UP"
    DOWN = "ROUND_DOWN"
    CEILING = "ROUND_CEILING"
    FLOOR = "ROUND_FLOOR"


# java.text.DecimalFormat: a pattern's digits (`0` always written, `#` when not zero), grouping (`,`), a
# percent; a double rounded from its exact binary value, half even unless told otherwise (as Java 8+ does)
class DecimalFormat:
    def __init__(self, pattern="#,##0.###"):
        self.rounding = RoundingMode.HALF_EVEN
        self.applyPattern(pattern)

    def applyPattern(self, pattern):
        body = pattern.split(";")[0]
        digits = [i for i, ch in enumerate(body) if ch in "#0,."]
        start, end = (digits[0], digits[-1] + 1) if digits else (len(body), len(body))
        self.prefix, self.suffix = body[:start].replace("'", ""), body[end:].replace("'", "")
        whole, _, fraction = body[start:end].partition(".")
        self.min_int = whole.count("0")
        self.group = len(whole) - whole.rfind(",") - 1 if "," in whole else 0
        self.min_frac = fraction.count("0")
        self.max_frac = self.min_frac + fraction.count("#")
        self.scale = 100 if "%" in self.suffix + self.prefix else 1

    def setRoundingMode(self, mode):
        self.rounding = mode

    def setMaximumFractionDigits(self, n):
        self.max_frac = n
        self.min_frac = min(self.min_frac, n)

    def setMinimumFractionDigits(self, n):
        self.min_frac = n
        self.max_frac = max(self.max_frac, n)

    def setGroupingUsed(self, used):
        self.group = 3 if used and not self.group else self.group if used else 0

    def format(self, x):
        from decimal import Decimal

        value = Decimal(x) * self.scale
        value = value.quantize(Decimal(1).scaleb(-self.max_frac), self.rounding)
        whole, _, fraction = format(abs(value), "f").partition(".")
        fraction = fraction.rstrip("0")
        fraction += "0" * (self.min_frac - len(fraction))
        whole = whole.lstrip("0").rjust(self.min_int, "0")
        if not whole and not fraction:
            whole = "0"
        if self.group:
            head = len(whole) % self.group or self.group
            whole = ",".join([whole[:head]] + [whole[i : i + self.group] for i in range(head, len(whole), self.group)])
        sign = "-" if value.is_signed() else ""
        return sign + self.prefix + whole + ("." + fraction if fraction else "") + self.suffix


# String.format / printf where Python's % has no equal: `%,d` grouping, `%2$s` argument indexes, `%b`;
# `%.Nf` rounds half up from the shortest decimal, as half_up does
def java_sprintf(fmt, *args):
    import re
    from decimal import ROUND_HALF_UP, Decimal  # noqa: I001

    pieces, at, nxt = [], 0, 0
    for m in re.finditer(r"%(\d+\$)?([-+ 0,(#]*)(\d*)(\.\d+)?([a-zA-Z%])", fmt):
        index, flags, width, prec, conv = m.groups()
        pieces.append(fmt[at : m.start()])
        at = m.end()
        if conv in "n%":
            pieces.append("\n" if conv == "n" else "%")
            continue
        if index:
            v = args[int(index[:-1]) - 1]
        else:
            v, nxt = args[nxt], nxt + 1
        sign = "+" if "+" in flags else " " if " " in flags else ""
        group = "," if "," in flags else ""
        low = conv.lower()
        if low == "d":
            body = format(int(v), sign + group + "d")
        elif low == "f":
            digits = int(prec[1:]) if prec else 6
            q = Decimal(str(v)).quantize(Decimal(1).scaleb(-digits), ROUND_HALF_UP)
            body = format(q, sign + group + "." + str(digits) + "f")
        elif low in "eg":
            body = format(float(v), sign + (prec or ".6") + low)
        elif low in "xo":
            body = format(int(v) % (1 << 64) if int(v) < 0 else int(v), low)
        elif low == "c":
            body = chr(v) if isinstance(v, int) else str(v)
        elif low == "b":
            body = "false" if v is None or v is False else "true"
        else:
            body = "null" if v is None else ("true" if v else "false") if isinstance(v, bool) else str(v)
            body = body[: int(prec[1:])] if prec else body
        if "0" in flags and "-" not in flags and width:
            body = body[0] + body[1:].rjust(int(width) - 1, "0") if body[:1] in "+- " else body.rjust(int(width), "0")
        elif width:
            body = body.ljust(int(width)) if "-" in flags else body.rjust(int(width))
        pieces.append(body.upper() if conv.isupper() else body)
    pieces.append(fmt[at:])
    return "".join(pieces)


# A StringBuilder field: its appends (``sb += x``) keep parts, joined when read. A global or an attribute
# rebound by ``+=`` on a str is copied whole on every append (CPython extends in place only a function's
# local): quadratic. A read (str, print, an index, a slice, a str method) joins the parts once; what a read
# gives is a str, so an edit that rebinds (``sb = sb [ : n ]``) leaves a str, as a local builder is.
class TextBuilder:
    def __init__(self, text=""):
        text = str(text)
        self._parts = [text]
        self._len = len(text)

    def __iadd__(self, text):
        text = str(text)
        self._parts.append(text)
        self._len += len(text)
        return self

    def __str__(self):
        if len(self._parts) > 1:
            self._parts = ["".join(self._parts)]
        return self._parts[0]

    def __len__(self):
        return self._len

    def __getitem__(self, at):
        return str(self)[at]

    def __iter__(self):
        return iter(str(self))

    def __contains__(self, text):
        return str(text) in str(self)

    def __add__(self, other):
        return str(self) + str(other)

    def __radd__(self, other):
        return str(other) + str(self)

    def __mul__(self, n):
        return str(self) * n

    def __eq__(self, other):
        return str(self) == str(other) if isinstance(other, str | TextBuilder) else NotImplemented

    def __lt__(self, other):
        return str(self) < str(other)

    def __hash__(self):
        return hash(str(self))

    def __format__(self, spec):
        return format(str(self), spec)

    def __repr__(self):
        return repr(str(self))

    def __getattr__(self, name):  # find, rfind, split, strip...: the str's
        return getattr(str(self), name)
