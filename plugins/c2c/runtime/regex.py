"""java.util.regex over Python's ``re`` (the Java syntax common in contest code reads the same)."""

import re

__all__ = ["Pattern", "Matcher"]


class Pattern:
    def __init__(self, regex):
        self.regex = re.compile(regex)

    @staticmethod
    def compile(regex, flags=0):
        return Pattern(regex)

    @staticmethod
    def matches(regex, text):
        return re.fullmatch(regex, text) is not None

    @staticmethod
    def quote(text):
        return re.escape(text)

    def matcher(self, text):
        return Matcher(self.regex, text)

    def split(self, text):
        parts = self.regex.split(text)
        while len(parts) > 1 and parts[-1] == "":
            parts.pop()
        return parts

    def pattern(self):
        return self.regex.pattern


class Matcher:
    def __init__(self, regex, text):
        self.regex = regex
        self.text = text
        self.found = None
        self.at = 0

    def matches(self):
        self.found = self.regex.fullmatch(self.text)
        return self.found is not None

    def lookingAt(self):
        self.found = self.regex.match(self.text)
        return self.found is not None

    def find(self, start=None):
        if start is not None:
            self.at = start
        if self.at > len(self.text):  # past an empty match at the end: Java's find is false from here
            self.found = None
            return False
        self.found = self.regex.search(self.text, self.at)
        if self.found is None:
            return False
        self.at = self.found.end() + (self.found.end() == self.found.start())
        return True

    def group(self, k=0):
        return self.found.group(k)

    def start(self, k=0):
        return self.found.start(k)

    def end(self, k=0):
        return self.found.end(k)

    def groupCount(self):
        return self.regex.groups

    def reset(self):
        self.at = 0
        self.found = None
        return self
