"""Quotations in a note: someone's speech is left out with its sentence, a title is kept whole.

Cutting a quotation out of a sentence and reading the rest leaves a hole ("I want to read “The
Dispossessed” before the end of the year" → "Wants to read before the end of the year"), so a
sentence holding a quotation is read whole or not at all. A quotation is one of two things:

- **someone's speech**, not the author's statement: it holds the first person ("I love Berlin",
  我很累, "My …"), or a sentence of its own (! ? ; 。！？ anywhere, . , : at its end, a line break),
  or it follows a speaking verb or a colon (she said “…”, 他说“…”, He wrote: "…"), or is followed by
  one (“…,” she said), or it is more than eight words long. Most of a sentence that is mostly a
  quotation is one of these. The sentence holding it is not read at all: what is left around the
  speech is about the speech ("She said “I love Berlin”" must not become "Loves Berlin"), and
  reading around it would leave the hole. A quotation that ends a sentence inside its marks
  ('Joana said "I hate podcasts." I love podcasts.') ends its sentence, so the next one is read.
- **a title or a term** the author names in their own sentence ("I want to read “The Dispossessed”",
  "I prefer tabs over “spaces”", 我希望从“旧版”升级为“新版”): anything that is not speech. The
  sentence is read with it whole, its quote marks kept.

The patterns see a title as a private-use character (twice), so no pattern cuts inside it, reads its words
as the author's ("My" in a title is not "their") or ends a sentence at its punctuation; `restore`
puts the quoted words back into a wording. Straight single quotes are left alone: they are
apostrophes far too often.
"""

from __future__ import annotations

import re

# Curly single quotes too: ‘ only ever opens a quotation, and its closing ’ is the one not followed by a
# letter (inside, ’ is an apostrophe: ‘I’m tired,’ she said).
_QUOTED = re.compile(r"\"(?P<a>[^\"]*)\"|“(?P<b>[^”]*)”|«(?P<c>[^»]*)»|‘(?P<d>[^\n]*?)’(?!\w)|「(?P<e>[^」]*)」"
                     r"|『(?P<f>[^』]*)』|＂(?P<g>[^＂]*)＂")
QUOTED = _QUOTED  # any quotation, marks and all: `remember` keeps each as said (stated.py)
_FIRST = 0xE000  # titles are U+E000 …; the last two private-use characters mark speech
SPEECH, SPEECH_END = "\uf8fe", "\uf8ff"  # speech; speech whose quotation ends its sentence
_MAX_TITLES = 0xF8FE - _FIRST
_PRIVATE = re.compile("[\ue000-\uf8ff]")
# A title's placeholder is its character twice: a pattern wanting two characters or more reads it too.
_TITLE = re.compile("([\ue000-\uf8fd])\\1?")

_FIRST_PERSON = re.compile(r"\b(?:I|I['’](?:m|ve|d|ll)|(?i:me|my|mine|myself|we|us|our|ours))\b|我")
_SENTENCE_INSIDE = re.compile(r"[!?;！？；。\n]|[.,:，：、…]\s*$|\.\s")
SPEAKING = (r"said|says|say|saying|told(?:\s+\w+)?|tells(?:\s+\w+)?|tell(?:\s+\w+)?|wrote|writes|write|asked|asks|"
             r"replied|replies|answered|answers|shouted|yelled|whispered|added|adds|goes|went|quipped|joked|"
             r"exclaimed|insisted|explained|muttered|announced|texted|messaged|put it|remarked|noted|tweeted|"
             r"posted|sang|sings")
ZH_SPEAKING = r"说|问|道|讲|喊|叫道|写道|写着|回答|表示|告诉我|提到|强调|感叹|嘀咕|嚷"
_SPOKEN_BEFORE = re.compile(rf"(?:\b(?:{SPEAKING})\s*[,:]?|[:：]|(?:{ZH_SPEAKING})\s*[：:，,]?)\s*$", re.IGNORECASE)
_SPOKEN_AFTER = re.compile(rf"^\s*[,，]?\s*(?:(?:she|he|they|someone|[A-Z][\w'’-]*|(?:my|the|our|his|her) \w+)\s+)?"
                           rf"(?:{SPEAKING})\b|^\s*[,，]?\s*[\u4e00-\u9fff]{{0,4}}?(?:{ZH_SPEAKING})",
                           re.IGNORECASE)
_MAX_TITLE_WORDS = 8


class Quotations:
    """A text with its quotations set apart: titles as placeholders to restore, speech as a mark."""

    def __init__(self, text: str):
        self.titles: list[str] = []
        self.text = _QUOTED.sub(self._set_apart, _PRIVATE.sub("", text))

    def _set_apart(self, m: re.Match[str]) -> str:
        inside = next(g for g in m.groups() if g is not None)
        if _is_speech(inside, m.string[: m.start()], m.string[m.end():]) or len(self.titles) >= _MAX_TITLES:
            return SPEECH_END if re.search(r"[.!?。！？]\s*$", inside) else SPEECH
        self.titles.append(m[0])
        return chr(_FIRST + len(self.titles) - 1) * 2

    def restore(self, wording: str) -> str:
        """The wording with each title's quoted words back in place, quote marks and all."""
        return " ".join(_TITLE.sub(lambda m: self.titles[ord(m[1]) - _FIRST], wording).split())


def holds_speech(sentence: str) -> bool:
    """Whether a sentence of a `Quotations` text holds someone's speech: it is then not read at all."""
    return SPEECH in sentence or SPEECH_END in sentence


def _is_speech(inside: str, before: str, after: str) -> bool:
    """Whether a quotation is someone's words rather than a title or a term (see the module's rule)."""
    return bool(_FIRST_PERSON.search(inside) or _SENTENCE_INSIDE.search(inside.strip())
                or _SPOKEN_BEFORE.search(before) or _SPOKEN_AFTER.search(after)
                or len(inside.split()) > _MAX_TITLE_WORDS)
