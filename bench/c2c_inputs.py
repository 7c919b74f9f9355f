"""Further stdin tests for a whole program, made from its sample input (the Java is the oracle).

    python -m bench.c2c_programs --generated 20     # uses this module

The sample input is read as lines of pieces: numbers (``-12``, ``1.10``), words (``abc``)
and the literal text between them (spaces, commas). Numbers that fix the input's *shape*
are found by what they count in the sample: the tokens of a later line, the lines of a
block of equally wide lines right after them, the letters of a later single-word line,
or the lines left after them. Candidates then come from a few seeded strategies:

* ``values``: the other numbers redrawn within the range the sample shows (a line of
  several numbers: its min..max; a lone number: 0..2x, same sign), words redrawn from
  their own alphabet with their length kept;
* ``first_line``: as ``values`` but every number of the first line is kept too (the
  usual place of counts that the shape rules miss, such as a number of test cases);
* ``small``: edge values (0..3, or 1..5 where the sample has no zero), words over two letters;
* ``shuffle``: the numbers of each line without a shape number permuted, word letters permuted;
* ``grow``: one shape number multiplied (x2 .. x200, at most ``MAX_GROWN``) and the lines,
  tokens or letters it counts extended with values drawn as in ``values``;
* ``large``: one shape number made ``LARGE_SIZES`` (10^4 .. 10^5 items, inputs under
  ``MAX_INPUT_CHARS``), what it counts filled with the sample's own rows and tokens drawn
  at random: what judges' tests mostly are, for time limits and recursion depth;
* ``magnitude``: as ``first_line``, the other integers drawn log-uniformly from the sample's
  range up to the value limit (10^9, AtCoder's usual bound), for overflow and big-number paths;
* ``limits``: what judges' largest tests are: one shape number made the size limit (the Java's
  own array bounds when it declares some, ``new int[100005]`` -> 10^5; else 2x10^5), as many as
  fit ``MAX_INPUT_CHARS``, and every other number of the grown input drawn as in ``magnitude``.

The limits (``Limits``, from ``limits_of(java)``) are a guess from the source: what a candidate
may exceed is settled by the Java itself, which must end normally within its time limit.

Everything is a pure function of (sample, seed); which candidates become tests is decided
by running the Java on them (``bench.c2c_programs``): those where it ends normally within
its time limit are kept, with its stdout as the expected output.
"""

from __future__ import annotations

import math
import random
import re
import string
from dataclasses import dataclass

STRATEGIES = ("values", "first_line", "small", "shuffle", "grow", "large", "magnitude", "limits")
MAX_GROWN = 2000  # ``grow`` makes counts up to this
LARGE_SIZES = (10_000, 30_000, 100_000)  # ``large`` makes counts of these sizes
MAX_INPUT_CHARS = 4_000_000  # larger candidates are dropped (judges' largest inputs are a few MB)
SIZE_LIMIT = 200_000  # the count ``limits`` makes when the Java declares no array bound (AtCoder's usual N)
VALUE_LIMIT = 10**9  # the largest integer ``magnitude`` and ``limits`` draw (AtCoder's usual bound)
_ARRAY_BOUND = re.compile(r"new\s+(?:int|long|double|boolean|short|float|Integer|Long)\s*((?:\[[^\]\[]*\]\s*)+)")
_INT = re.compile(r"(?<![\w.])-?\d{1,18}(?![\w.])")  # longer digit runs are left as they are
_INT64_SAFE = 10**18
_CONSTANT = re.compile(r"\bfinal\s+(?:int|long)\s+(\w+)\s*=\s*([0-9_]+)\s*;")
_PIECE = re.compile(r"(?P<num>(?<![\w.])-?\d+(?:\.\d+)?(?![\w.]))|(?P<word>[A-Za-z]+)")


@dataclass(frozen=True, slots=True)
class Piece:
    kind: str  # "int", "float", "word" or "text" (kept literally: spaces, commas, symbols)
    text: str


@dataclass(frozen=True, slots=True)
class Limits:
    """How far ``limits`` and ``magnitude`` go: the largest count and the largest integer."""

    size: int = SIZE_LIMIT
    value: int = VALUE_LIMIT


def limits_of(java: str) -> Limits:
    """The limits a program's source implies: its largest array bound between 10^3 and 10^7
    (``new int[100005]``, ``new long[MAX + 1]`` with ``final int MAX = 200000``), rounded down to
    two significant digits (100005 -> 100000); ``SIZE_LIMIT`` when it declares none. Character
    and byte arrays are left out (read buffers, not constraints)."""
    constants = {name: int(value.replace("_", "")) for name, value in _CONSTANT.findall(java)}
    bounds = []
    for dims in _ARRAY_BOUND.findall(java):
        for dim in re.findall(r"\[([^\]]*)\]", dims):
            terms = [t.strip().replace("_", "") for t in dim.split("+")]
            values = [int(t) if t.isdigit() else constants.get(t) for t in terms]
            if values and all(v is not None for v in values) and 1000 <= sum(values) <= 10**7:
                total = sum(values)
                unit = 10 ** max(0, len(str(total)) - 2)
                bounds.append(total // unit * unit)
    return Limits(size=max(bounds) if bounds else SIZE_LIMIT)


def parse(sample: str) -> list[list[Piece]]:
    """The sample as lines of pieces; joining every piece's text gives the line back."""
    lines = []
    for line in sample.splitlines():
        pieces: list[Piece] = []
        pos = 0
        for m in _PIECE.finditer(line):
            if m.start() > pos:
                pieces.append(Piece("text", line[pos : m.start()]))
            if m.group("num") is not None:
                pieces.append(Piece("float" if "." in m.group("num") else "int", m.group("num")))
            else:
                pieces.append(Piece("word", m.group("word")))
            pos = m.end()
        if pos < len(line):
            pieces.append(Piece("text", line[pos:]))
        lines.append(pieces)
    return lines


def render(lines: list[list[Piece]]) -> str:
    return "".join("".join(p.text for p in line) + "\n" for line in lines)


def _width(line: list[Piece]) -> int:
    return len("".join(p.text for p in line).split())


@dataclass(frozen=True, slots=True)
class Link:
    """A shape number: the int piece at ``(line, index)`` counts ``what`` of ``target`` lines."""

    line: int
    index: int
    what: str  # "tokens" (each target line has that many tokens), "lines" (a block), "letters"
    targets: tuple[int, ...]  # line numbers it governs


def shape_links(lines: list[list[Piece]]) -> list[Link]:
    """The int pieces of header-like lines whose value the sample's shape shows them counting."""
    widths = [_width(line) for line in lines]
    links: list[Link] = []
    counted: set[int] = set()  # lines some earlier shape number counts: data, not headers
    for i, line in enumerate(lines):
        ints = [j for j, p in enumerate(line) if p.kind == "int"]
        header = len(ints) <= 4 and all(p.kind == "int" or not p.text.strip() for p in line)
        if not header or i in counted:
            continue
        for j in ints:
            v = int(line[j].text)
            link = _link_for(lines, widths, i, j, v) if v >= 1 else None
            if link is not None:
                links.append(link)
                counted.update(link.targets)
    return links


def _link_for(lines: list[list[Piece]], widths: list[int], i: int, j: int, v: int) -> Link | None:
    nxt = i + 1
    # a block of v lines of equal width right after this line (n, then n rows)
    if nxt + v <= len(lines) and v >= 2 and len(set(widths[nxt : nxt + v])) == 1 and widths[nxt] > 0:
        after = nxt + v
        if after == len(lines) or widths[after] != widths[nxt] or v == len(lines) - nxt:
            return Link(i, j, "lines", tuple(range(nxt, nxt + v)))
    # the following lines of width v (n, then a row of n values; n m, then rows of m values)
    rows = []
    k = nxt
    while k < len(lines) and widths[k] == v:
        rows.append(k)
        k += 1
    if rows and (v >= 2 or widths[i] > 1):
        return Link(i, j, "tokens", tuple(rows))
    # a later single-word line of v letters (n, then a string of length n)
    for k in range(nxt, min(len(lines), nxt + 3)):
        words = [p for p in lines[k] if p.kind in ("word", "int")]
        digits = len(words) == 1 and words[0].kind == "int" and set(words[0].text) <= {"0", "1"} and v >= 5
        if widths[k] == 1 and len(words) == 1 and len(words[0].text) == v and (words[0].kind == "word" or digits):
            return Link(i, j, "letters", (k,))
    # v lines left after this one (n, then n lines of any shape)
    if v >= 2 and len(lines) - nxt == v:
        return Link(i, j, "lines", tuple(range(nxt, len(lines))))
    # a later line's width, farther away
    if v >= 2 and v in widths[nxt + 1 :]:
        return Link(i, j, "tokens", ())
    return None


def _ranges(lines: list[list[Piece]]) -> dict[tuple[int, int], tuple[float, float]]:
    """Per number piece, the range its value is redrawn in."""
    out: dict[tuple[int, int], tuple[float, float]] = {}
    for i, line in enumerate(lines):
        nums = [(j, float(p.text)) for j, p in enumerate(line) if p.kind in ("int", "float")]
        line_lo, line_hi = min((x for _, x in nums), default=0.0), max((x for _, x in nums), default=0.0)
        for j, v in nums:
            if len(nums) >= 3:
                lo, hi = line_lo, line_hi
                if lo == hi:
                    lo, hi = min(lo, 0.0 if lo >= 0 else 2 * lo), max(hi * 2, hi + 2)
            elif v >= 0:
                lo, hi = 0.0 if v < 10 else 1.0, max(2 * v, 9.0)
            else:
                lo, hi = 2 * v, 0.0
            out[(i, j)] = (lo, hi)
    return out


def _draw_number(piece: Piece, lo: float, hi: float, rng: random.Random) -> str:
    if piece.kind == "int":
        return str(rng.randint(int(lo), int(hi)))
    decimals = len(piece.text.split(".", 1)[1])
    return f"{rng.uniform(lo, hi):.{decimals}f}"


def _draw_word(word: str, rng: random.Random, vocabulary: list[str], alphabet: str | None = None) -> str:
    """A word like ``word``: one of the sample's words half the time (answers such as AC / WA are
    categories), otherwise letters of its own alphabet, its length kept."""
    if alphabet is None and len(vocabulary) >= 2 and rng.random() < 0.5:
        return rng.choice(vocabulary)
    if alphabet is None:
        if word.islower():
            alphabet = "".join(sorted(set(word))) if rng.random() < 0.5 else string.ascii_lowercase
        elif word.isupper():
            alphabet = "".join(sorted(set(word))) if rng.random() < 0.5 else string.ascii_uppercase
        else:
            alphabet = "".join(sorted(set(word)))
    return "".join(rng.choice(alphabet) for _ in word)


def _small_alphabet(word: str) -> str:
    letters = sorted(set(word))
    return "".join(letters[:2]) if len(letters) >= 2 else letters[0] + ("b" if letters[0] != "b" else "a")


def candidate(sample: str, seed: int, strategy: str, limits: Limits = Limits()) -> str:
    """One candidate input made from ``sample`` by ``strategy`` (one of ``STRATEGIES``)."""
    rng = random.Random(seed)
    lines = parse(sample)
    links = shape_links(lines)
    fixed = {(link.line, link.index) for link in links}
    if strategy in ("first_line", "magnitude", "limits") and len(lines) > 1:
        fixed |= {(0, j) for j, p in enumerate(lines[0]) if p.kind in ("int", "float")}
    if strategy == "limits":
        text = _at_limits(lines, links, rng, limits)
        if text is not None:
            return text
        strategy = "magnitude"
    if strategy in ("grow", "large"):
        grown = _grow(lines, links, rng, large=strategy == "large")
        if grown is None:
            strategy = "values"
        elif strategy == "large":  # the sample's rows and tokens drawn again: no per-value work on 10^5 items
            return render(grown[0])
        else:
            lines, at, added = grown
            fixed = {(i + added if i >= at else i, j) for i, j in fixed}
    ranges = _ranges(lines)
    if strategy in ("magnitude", "limits"):
        big = max(limits.value, 1000)
        ranges = {
            pos: (-big if lo < 0 else lo, 10 ** rng.uniform(math.log10(max(hi, 1)), math.log10(big)))
            for pos, (lo, hi) in ranges.items()
        }
    vocabulary = sorted({p.text for line in lines for p in line if p.kind == "word"})
    out = []
    for i, line in enumerate(lines):
        shuffle_ok = strategy == "shuffle" and not any((i, j) in fixed for j in range(len(line)))
        nums = [p.text for p in line if p.kind in ("int", "float")]
        if shuffle_ok:
            rng.shuffle(nums)
        new_line, k = [], 0
        for j, p in enumerate(line):
            text = p.text
            if p.kind in ("int", "float"):
                if shuffle_ok:
                    text = nums[k]
                elif (i, j) not in fixed and strategy != "shuffle":
                    lo, hi = ranges[(i, j)]
                    if strategy == "small":
                        lo, hi = (0, 3) if lo <= 0 else (1, 5)
                    text = _draw_number(p, lo, hi, rng)
                k += 1
            elif p.kind == "word":
                if strategy == "shuffle":
                    letters = list(text)
                    rng.shuffle(letters)
                    text = "".join(letters)
                elif strategy == "small":
                    text = _draw_word(text, rng, vocabulary, _small_alphabet(text))
                else:
                    text = _draw_word(text, rng, vocabulary)
            new_line.append(Piece(p.kind, text))
        out.append(new_line)
    return render(out)


def _at_limits(lines: list[list[Piece]], links: list[Link], rng: random.Random, limits: Limits) -> str | None:
    """The ``limits`` candidate: one shape number made ``limits.size`` (or as many as fit
    ``MAX_INPUT_CHARS`` with 10-digit values), what it counts extended with the sample's rows,
    tokens or letters, then every integer outside the first line and the shape numbers' lines
    redrawn up to a magnitude drawn log-uniformly between the sample's largest and ``limits.value``
    (at least 1 where the line's sample values are, negative allowed where they are). Works on text
    with bulk draws: 2x10^5 values take a fraction of a second. None when nothing can grow."""
    import numpy as np

    growable = [link for link in links if link.targets]
    if not growable:
        return None
    link = rng.choice(growable)
    old = int(lines[link.line][link.index].text)
    if link.what == "letters":
        per_item = 1
    elif link.what == "lines":  # one more row, as wide as the block's rows
        per_item = 11 * max(1, sum(_width(lines[k]) for k in link.targets) // len(link.targets))
    else:  # one more token on each counted line
        per_item = 11 * len(link.targets)
    new = max(old + 1, min(limits.size, MAX_INPUT_CHARS // per_item - len(lines)))
    head = list(lines[link.line])
    head[link.index] = Piece("int", str(new))
    texts = ["".join(p.text for p in line) for line in lines]
    texts[link.line] = "".join(p.text for p in head)
    headers = {0} | {lk.line for lk in links}  # lines kept as they are (counts; a string of digits)
    if link.what == "letters":
        headers.add(link.targets[0])
    at, added = len(texts), 0
    if link.what == "lines":
        at, added = link.targets[-1] + 1, new - old
        texts[at:at] = rng.choices([texts[k] for k in link.targets], k=added)
    elif link.what == "tokens":
        for k in link.targets:
            tokens = texts[k].split()
            sep = " " if " " in texts[k].strip() or len(tokens) <= 1 else texts[k].strip()[len(tokens[0])]
            texts[k] = sep.join(rng.choices(tokens, k=new))
    else:
        (k,) = link.targets
        word = texts[k].strip()
        alphabet = "".join(sorted(set(word))) + ("" if len(set(word)) > 1 else "ab" if word.isalpha() else "01")
        texts[k] = "".join(rng.choices(alphabet, k=new))
    headers = {i + added if i >= at else i for i in headers}
    top = max((abs(int(p.text)) for line in lines for p in line if p.kind == "int"), default=1)
    ceiling = min(max(limits.value, top, 10), _INT64_SAFE)  # a sample's 10^18 stays; no bigger draws
    hi = int(10 ** rng.uniform(math.log10(min(max(top, 1), ceiling)), math.log10(ceiling)))
    gen = np.random.default_rng(rng.getrandbits(64))
    out, i = [], 0
    while i < len(texts):  # runs of data lines between header lines, each redrawn in one pass
        end = i + 1
        while end < len(texts) and (i in headers) == (end in headers):
            end += 1
        run = "".join(t + "\n" for t in texts[i:end])
        found = [] if i in headers else _INT.findall(run)  # at most 19 characters each (the pattern)
        if found:
            least = min(int(v) for v in found)
            drawn = iter(gen.integers(-hi if least < 0 else min(1, least), hi + 1, size=len(found)).tolist())
            run = _INT.sub(lambda _m, d=drawn: str(next(d)), run)
        out.append(run)
        i = end
    return "".join(out)


def _grow(
    lines: list[list[Piece]], links: list[Link], rng: random.Random, *, large: bool = False
) -> tuple[list[list[Piece]], int, int] | None:
    """Lines with one shape number multiplied and what it counts extended, where lines were
    inserted and how many; None when nothing can grow."""
    growable = [link for link in links if link.targets]
    if not growable:
        return None
    link = rng.choice(growable)
    old = int(lines[link.line][link.index].text)
    if large:
        new = max(old + 1, rng.choice(LARGE_SIZES))
    else:
        new = min(MAX_GROWN, max(old + 1, old * rng.choice((2, 5, 20, 200))))
    lines = [list(line) for line in lines]
    lines[link.line][link.index] = Piece("int", str(new))
    at, added = len(lines), 0
    if link.what == "lines":
        block = [lines[k] for k in link.targets]
        at, added = link.targets[-1] + 1, new - old
        lines[at:at] = [list(rng.choice(block)) for _ in range(added)]
    elif link.what == "tokens":
        for k in link.targets:
            lines[k] = _widen(lines[k], new, rng)
    else:
        (k,) = link.targets
        word = next(p for p in lines[k] if p.kind in ("word", "int"))
        alphabet = "".join(sorted(set(word.text)))
        if len(alphabet) == 1:
            alphabet += "ab" if word.text.isalpha() else "01"
        kind = "word" if word.text.isalpha() else "text"
        lines[k] = [Piece(kind, "".join(rng.choice(alphabet) for _ in range(new)))]
    return lines, at, added


def _widen(line: list[Piece], width: int, rng: random.Random) -> list[Piece]:
    """``line`` with ``width`` whitespace tokens: its tokens repeated in a random order."""
    text = "".join(p.text for p in line)
    tokens = text.split()
    sep = " " if " " in text.strip() or len(tokens) <= 1 else text.strip()[len(tokens[0])]
    new = [rng.choice(tokens) for _ in range(width)]
    return parse(sep.join(new))[0] if new else []


def candidates(sample: str, seed: int, count: int, limits: Limits = Limits()) -> list[tuple[str, int]]:
    """``count`` (strategy, seed) candidates, strategies in turn: ``candidate(sample, seed, strategy, limits)``
    is the input (so a cache keeps the pair, not the text); duplicates, the sample and inputs over
    ``MAX_INPUT_CHARS`` dropped."""
    out: list[tuple[str, int]] = []
    seen = {render(parse(sample))}
    for k in range(count * 3):
        if len(out) >= count:
            break
        strategy = STRATEGIES[k % len(STRATEGIES)]
        text = candidate(sample, seed * 1_000_003 + k, strategy, limits)
        if text not in seen and len(text) <= MAX_INPUT_CHARS:
            seen.add(text)
            out.append((strategy, seed * 1_000_003 + k))
    return out
