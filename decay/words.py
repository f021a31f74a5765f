"""Words as matching and recall read them: Latin words folded and stemmed, CJK runs apart. Pure."""

from __future__ import annotations

import functools
import re
import threading
import unicodedata

import Stemmer  # type: ignore[import-not-found]  # PyStemmer ships no type information

# Chinese, Japanese and Korean letters (Han, kana, Hangul, their extensions and half-width forms),
# written without spaces between words.
CJK_CLASS = (
    "\u1100-\u11ff\u2e80-\u2fdf\u3005-\u3007\u3021-\u3029\u3031-\u3035\u3038-\u303c\u3040-\u30ff\u3130-\u318f"
    "\u31a0-\u31bf\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\uff66-\uffdc"
    "\U00020000-\U0003134f"
)
# A run of CJK letters (group 1), or a word of any other letters and digits.
RUN = re.compile(f"([{CJK_CLASS}]+)|[^\\W_{CJK_CLASS}]+")

_stemmer = Stemmer.Stemmer("english")
_stem_lock = threading.Lock()  # one stemmer, shared: a server may rank from several threads


def fold(word: str) -> str:
    """A word case- and accent-folded: "Inês" → "ines"."""
    word = word.casefold()
    if word.isascii():
        return word
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


@functools.lru_cache(maxsize=100_000)
def stem(folded: str) -> str:
    """The English (Snowball) stem of a folded word; digits are their own stem."""
    if folded.isdigit():
        return folded
    with _stem_lock:
        return str(_stemmer.stemWord(folded))


@functools.lru_cache(maxsize=100_000)
def is_cjk(text: str) -> bool:
    """Whether a text is written in Chinese, Japanese or Korean: its CJK letters at least as many as its other words."""
    letters = words = 0
    for match in RUN.finditer(text):
        if match[1] is None:
            words += 1
        else:
            letters += len(match[1])
    return letters > 0 and letters >= words
