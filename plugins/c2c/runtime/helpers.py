# ruff: noqa: E741 - the names GeeksforGeeks gives (`l`, `r`) are written as it writes them
"""Helpers a GeeksforGeeks function calls without defining them (they lived elsewhere in its class).

Each is defined after the function that calls it, with the arguments as GeeksforGeeks passes them, and quoted as
the references quote (``'1'``; ``# fmt: skip``): a program carries these tokens as they stand.
"""

import math

__all__ = [
    "swap", "quickSort", "mergeSort", "reverse", "gcd", "__gcd", "lcm", "getMin", "getMax", "findMin",
    "findMax", "power", "factorial", "fact", "isPrime", "isVowel", "isPalindrome", "countSetBits",
    "binarySearch", "printArray", "sort", "bubbleSort", "insertionSort", "selectionSort", "heapSort",
]  # fmt: skip


def swap(arr, i, j):
    arr[i], arr[j] = arr[j], arr[i]


def quickSort(arr, low, high):
    arr[low : high + 1] = sorted(arr[low : high + 1])


def mergeSort(arr, l, r):
    arr[l : r + 1] = sorted(arr[l : r + 1])


def reverse(a, lo=None, hi=None):
    if lo is None:
        return a[::-1]
    a[lo : hi + 1] = a[lo : hi + 1][::-1]


def gcd(a, b):
    return a if b == 0 else gcd(b, a % b)


def __gcd(a, b):
    return a if b == 0 else __gcd(b, a % b)


def lcm(a, b):
    return a * b // math.gcd(a, b)


def getMin(arr, n=None):
    return min(arr[:n]) if isinstance(arr, list) else min(arr, n)


def getMax(arr, n=None):
    return max(arr[:n]) if isinstance(arr, list) else max(arr, n)


findMin = getMin
findMax = getMax


# modular power by squaring, as GeeksforGeeks' power(x, y, p): not `pow ( x , y , p )`, which
# TransCoder's scripts shadow with math.pow (two arguments) by their `from math import *`
def power(x, y, p=None):
    if p is None:
        return x**y
    res = 1
    x = x % p
    while y > 0:
        if y & 1:
            res = res * x % p
        y = y >> 1
        x = x * x % p
    return res


def factorial(n):
    return 1 if n <= 1 else n * factorial(n - 1)


def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)


def isPrime(n):
    if n < 2:
        return False
    i = 2
    while i * i <= n:
        if n % i == 0:
            return False
        i += 1
    return True


def isVowel(c):
    return c in 'aeiouAEIOU'  # fmt: skip


def isPalindrome(s):
    return s == s[::-1]


def countSetBits(n):
    return bin(n).count('1')  # fmt: skip


def binarySearch(arr, l, r, x):
    while l <= r:
        m = (l + r) // 2
        if arr[m] == x:
            return m
        if arr[m] < x:
            l = m + 1
        else:
            r = m - 1
    return -1


def printArray(arr, n):
    for i in range(n):
        print(arr[i], end=' ')  # fmt: skip
    print()


# in-place sorts of the first n elements, called as GeeksforGeeks calls them: sort(arr, n)
def sort(arr, n):
    arr[:n] = sorted(arr[:n])


bubbleSort = insertionSort = selectionSort = heapSort = sort
