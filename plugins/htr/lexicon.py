"""A word-frequency prior for choosing among the beam's readings.

The crops are words of running Russian or English text, so among readings
the CTC head finds about equally likely, a frequent word is the better bet
("place" over "plaoe"). The prior is wordfreq's Zipf frequency (0 for unknown
words, about 7 for "the"); unknown words get no bonus and no penalty, so
names and rare words can still win on the image evidence. wordfreq ships its
data inside the package: nothing is downloaded.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

_EDGE_PUNCT = " .,!?-'\":;()/&+#*%№"


class Lexicon:
    """``best(readings)``: argmax of ``log P(reading) + weight * zipf(word) / 8``."""

    def __init__(self, weight: float = 2.0, frequency: Callable[[str, str], float] | None = None) -> None:
        if frequency is None:
            from wordfreq import zipf_frequency

            frequency = zipf_frequency
        self.weight = weight
        self._frequency = frequency
        self._cache: dict[str, float] = {}

    def prior(self, text: str) -> float:
        """Zipf frequency of the word inside ``text`` (edge punctuation stripped), scaled to about [0, 1]."""
        core = text.strip(_EDGE_PUNCT)
        if not core or not core.replace("-", "").replace("'", "").isalpha():
            return 0.0
        if core not in self._cache:
            lang = "ru" if any("\u0400" <= ch <= "\u04ff" for ch in core) else "en"
            self._cache[core] = self._frequency(core.lower(), lang) / 8.0
        return self._cache[core]

    def best(self, readings: Sequence[tuple[str, float]]) -> str:
        """The reading with the highest ``log_prob + weight * prior``; "" for no readings."""
        if not readings:
            return ""
        return max(readings, key=lambda r: r[1] + self.weight * self.prior(r[0]))[0]
