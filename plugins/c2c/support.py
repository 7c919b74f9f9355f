"""Names a Java function uses without defining them: well-known helpers and constants.

GeeksforGeeks functions call helpers that lived elsewhere in their class (``swap``,
``quickSort``, ``getMin``, ``reverse``...) and read its constants (``MAX_CHAR``,
``NO_OF_CHARS``, ``MOD``). Where the source does not declare such a name, the
translation defines it after the function (which stays the first name before a
parenthesis, how TransCoder's unit-test scripts find it): helpers as small functions,
constants as ``NAME = value`` lines (after, not before: the references have no such
line, and one before the function costs CodeBLEU's dataflow match). Statement-level
``swap ( a , i , j )`` is inlined instead.
"""

from __future__ import annotations

import re

from plugins.c2c.syntax import Tokens

# undeclared upper-case constants -> value tokens (the usual GeeksforGeeks values; 256 covers any char index)
CONSTANTS: dict[str, Tokens] = {
    "MAX_CHAR": ["256"],
    "MAX_CHARS": ["256"],
    "NO_OF_CHARS": ["256"],
    "NO_OF_CHAR": ["256"],
    "TOTAL_CHARS": ["256"],
    "CHAR_SIZE": ["256"],
    "ASCII_SIZE": ["256"],
    "ALPHABET_SIZE": ["26"],
    "MOD": ["1000000007"],
    "INF": ["sys", ".", "maxsize"],
    "INFINITY": ["sys", ".", "maxsize"],
    "MAX": ["1000"],
    "MAXN": ["1000"],
    "MAX_N": ["1000"],
    "MAX_SIZE": ["1000"],
    "MAX_LEN": ["1000"],
    "NO_OF_BITS": ["32"],
    "INT_SIZE": ["32"],
    "INT_BITS": ["32"],
}
_CONST_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")

# undeclared helper functions -> Python source (arguments as GeeksforGeeks passes them)
HELPERS: dict[str, str] = {
    "swap": """
def swap ( arr , i , j ) :
    arr [ i ] , arr [ j ] = arr [ j ] , arr [ i ]
""",
    "quickSort": """
def quickSort ( arr , low , high ) :
    arr [ low : high + 1 ] = sorted ( arr [ low : high + 1 ] )
""",
    "mergeSort": """
def mergeSort ( arr , l , r ) :
    arr [ l : r + 1 ] = sorted ( arr [ l : r + 1 ] )
""",
    "reverse": """
def reverse ( a , lo = None , hi = None ) :
    if lo is None :
        return a [ : : - 1 ]
    a [ lo : hi + 1 ] = a [ lo : hi + 1 ] [ : : - 1 ]
""",
    "gcd": """
def gcd ( a , b ) :
    return a if b == 0 else gcd ( b , a % b )
""",
    "__gcd": """
def __gcd ( a , b ) :
    return a if b == 0 else __gcd ( b , a % b )
""",
    "lcm": """
def lcm ( a , b ) :
    return a * b // math . gcd ( a , b )
""",
    "getMin": """
def getMin ( arr , n = None ) :
    return min ( arr [ : n ] ) if isinstance ( arr , list ) else min ( arr , n )
""",
    "getMax": """
def getMax ( arr , n = None ) :
    return max ( arr [ : n ] ) if isinstance ( arr , list ) else max ( arr , n )
""",
    "findMin": """
def findMin ( arr , n = None ) :
    return min ( arr [ : n ] ) if isinstance ( arr , list ) else min ( arr , n )
""",
    "findMax": """
def findMax ( arr , n = None ) :
    return max ( arr [ : n ] ) if isinstance ( arr , list ) else max ( arr , n )
""",
    # modular power by squaring, as GeeksforGeeks' power(x, y, p): not `pow ( x , y , p )`, which
    # TransCoder's scripts shadow with math.pow (two arguments) by their `from math import *`
    "power": """
def power ( x , y , p = None ) :
    if p is None :
        return x ** y
    res = 1
    x = x % p
    while y > 0 :
        if y & 1 :
            res = res * x % p
        y = y >> 1
        x = x * x % p
    return res
""",
    "factorial": """
def factorial ( n ) :
    return 1 if n <= 1 else n * factorial ( n - 1 )
""",
    "fact": """
def fact ( n ) :
    return 1 if n <= 1 else n * fact ( n - 1 )
""",
    "isPrime": """
def isPrime ( n ) :
    if n < 2 :
        return False
    i = 2
    while i * i <= n :
        if n % i == 0 :
            return False
        i += 1
    return True
""",
    "isVowel": """
def isVowel ( c ) :
    return c in 'aeiouAEIOU'
""",
    "isPalindrome": """
def isPalindrome ( s ) :
    return s == s [ : : - 1 ]
""",
    "countSetBits": """
def countSetBits ( n ) :
    return bin ( n ) . count ( '1' )
""",
    "binarySearch": """
def binarySearch ( arr , l , r , x ) :
    while l <= r :
        m = ( l + r ) // 2
        if arr [ m ] == x :
            return m
        if arr [ m ] < x :
            l = m + 1
        else :
            r = m - 1
    return - 1
""",
    "printArray": """
def printArray ( arr , n ) :
    for i in range ( n ) :
        print ( arr [ i ] , end = '▁' )
    print ( )
""",
}
# in-place sorts of the first n elements, called as GeeksforGeeks calls them: sort(arr, n)
HELPERS |= {
    name: f"""
def {name} ( arr , n ) :
    arr [ : n ] = sorted ( arr [ : n ] )
"""
    for name in ("sort", "bubbleSort", "insertionSort", "selectionSort", "heapSort")
}


def is_constant(name: str) -> bool:
    """Is ``name`` one of the undeclared constants the translation can define?"""
    return name in CONSTANTS and _CONST_NAME.match(name) is not None


def constant_lines(names: set[str]) -> list[tuple[int, Tokens]]:
    """``NAME = value`` lines (level 0) for the used undeclared constants, in name order."""
    return [(0, [name, "=", *CONSTANTS[name]]) for name in sorted(names)]


def helper_lines(names: set[str]) -> list[tuple[int, Tokens]]:
    """The used undeclared helpers' definitions as (level, tokens) lines, in name order."""
    lines: list[tuple[int, Tokens]] = []
    for name in sorted(names):
        for raw in HELPERS[name].strip("\n").splitlines():
            stripped = raw.lstrip(" ")
            lines.append(((len(raw) - len(stripped)) // 4, stripped.split()))
    return lines
