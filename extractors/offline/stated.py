"""A fact told to `remember`, as the memory files word items: in the third person, and whether it is tied to a time.

"my sister Chloe is starting at Brown this fall" → "Sister Chloe is starting at Brown this fall", "I don't
drink" → "Doesn't drink", "我妹妹Chloe今年秋天去布朗大学" → "妹妹Chloe今年秋天去布朗大学": the subject "I" goes
(the verb takes its third-person form), a leading "my"/我的 goes, and later first-person words read as the
person's ("my job" → "their job", 我的 → 自己的). A fact that does not start in the first person is left as it
is. A fact tied to a time ("this fall", "today", 最近, 下个月) is not standing: `time_bound` says whether it
is, and whether the time is near (today, this week, lately) or ahead (next month, this fall).
"""

from __future__ import annotations

import re
from typing import Literal

from .patterns import MOODS
from .quotations import QUOTED

When = Literal["near", "ahead", "past"]

_SEASON = r"(?:fall|autumn|spring|summer|winter|semester|term|quarter|year)"
_EN_NEAR = (r"today|tonight|tomorrow|right now|at the moment|currently|these days|lately|"
            r"for now|for the time being|this (?:morning|afternoon|evening|week|weekend|month)|later today")
# A time just past dates what happened, not how the person is now: "I started a new job last week" is still their
# job. Such a fact is not standing (never pinned), but it stays where its words file it.
_EN_PAST = r"yesterday|recently|this past (?:week|weekend|month)|last (?:night|week|weekend|month)"
_EN_AHEAD = (rf"next (?:week|weekend|month|{_SEASON}|(?:mon|tues|wednes|thurs|fri|satur|sun)day)|this {_SEASON}|"
             r"in (?:a|an|one|two|three|four|five|six|a few|a couple of|\d+) (?:days?|weeks?|months?)|"
             r"soon|later this (?:week|month|year)|by the end of (?:the|this|next) (?:week|month|year)")
_ZH_NEAR = (r"今天|今晚|今早|明天|明晚|后天|昨天|昨晚|这周末?|这个(?:星期|周末|月)|本周|本月|这几天|这阵子|这段时间|"
            r"最近|近来|现在|目前|此刻|眼下|暂时")
_ZH_PAST = r"昨天|昨晚|前天|上周末?|上个?星期|上个月"
_ZH_AHEAD = r"下周|下个?星期|下个月|下学期|下半年|明年|今年(?:春天|夏天|秋天|冬天)?|年底|年内"
_AHEAD = re.compile(rf"\b(?:{_EN_AHEAD})\b|{_ZH_AHEAD}", re.IGNORECASE)
_NEAR = re.compile(rf"\b(?:{_EN_NEAR})\b|{_ZH_NEAR}", re.IGNORECASE)
_PAST = re.compile(rf"\b(?:{_EN_PAST})\b|{_ZH_PAST}", re.IGNORECASE)


def time_bound(text: str) -> When | None:
    """Whether a fact is tied to a time, near (now), ahead or just past, or None when it is standing."""
    if _NEAR.search(text):
        return "near"
    if _AHEAD.search(text):
        return "ahead"
    return "past" if _PAST.search(text) else None


_ADVERB = (r"(?:(?:really|truly|always|never|usually|often|sometimes|rarely|seldom|also|still|only|just|mostly|"
           r"generally|normally|typically|definitely|absolutely|actually|currently|occasionally|hardly|already|"
           r"totally|honestly|strongly|firmly|deeply|genuinely|kind of|sort of|much|now|even|no longer)\s+)*")
_DEGREE = (r"(?:(?:so|really|very|a bit|a little|quite|pretty|completely|totally|super|extremely|incredibly|"
           r"kind of)\s+)*")
_MOOD = "|".join(sorted((re.escape(m) for m in MOODS), key=len, reverse=True))
_AM = r"I(?:'m|’m| am)"
# Words that stay as they are after "I": modals, and the past ("I moved", "I was").
_UNCHANGED = frozenset(
    "can can't can’t cannot could couldn't couldn’t will won't won’t would wouldn't wouldn’t should shouldn't "
    "shouldn’t must might may shall did didn't didn’t had hadn't hadn’t was wasn't wasn’t used got went made took "
    "came saw left began became bought sold found lost met ran wrote grew gave knew thought told felt kept spent won "
    "broke quit built taught caught brought fought sent slept fell drove rode flew swam sang ate drank forgot heard "
    "paid said sat stood understood wore woke chose led meant put set cut let hurt".split())
_HEADS: list[tuple[re.Pattern[str], str]] = [  # (the first-person head, its third-person form); \g<rest> follows
    (re.compile(rf"^{_AM} not\b", re.I), "Is not"),
    (re.compile(rf"^{_AM} (?P<how>{_DEGREE})(?=(?:{_MOOD})\b)", re.I), "Feeling \\g<how>"),
    # "I'm starting a new job" → "Starting a new job", as "I'm working on" is "Working on"
    (re.compile(rf"^{_AM} (?P<how>{_ADVERB})(?=\w+ing\b)(?!(?:no|some|any|every)thing\b)", re.I), "\\g<how>"),
    (re.compile(rf"^{_AM}\b", re.I), "Is"),
    (re.compile(r"^I have not\b", re.I), "Has not"),
    (re.compile(r"^I haven(?P<q>['’])t\b", re.I), "Hasn\\g<q>t"),
    (re.compile(r"^I(?:'ve|’ve| have)\b", re.I), "Has"),
    (re.compile(r"^I (?:do not|dont)\b", re.I), "Does not"),
    (re.compile(r"^I don(?P<q>['’])t\b", re.I), "Doesn\\g<q>t"),
    (re.compile(r"^I(?:'d|’d)\b", re.I), "Would"),
    (re.compile(r"^I(?:'ll|’ll)\b", re.I), "Will"),
]
_I_VERB = re.compile(rf"^I (?P<how>{_ADVERB})(?P<verb>[A-Za-z’']+)\b", re.I)
_MY = re.compile(r"^my\s+(?=\w)", re.I)
_LATER = [(re.compile(p), w) for p, w in (
    (r"\bI(?:'m|’m| am)\b", "they're"), (r"\bI was\b", "they were"), (r"\bI(?:'ve|’ve)\b", "they've"),
    (r"\bI(?:'d|’d)\b", "they'd"), (r"\bI(?:'ll|’ll)\b", "they'll"), (r"\bI\b", "they"),
    (r"\b(?i:myself)\b", "themselves"), (r"\b(?i:mine)\b", "theirs"), (r"\b(?i:my)\b", "their"),
    (r"\b(?i:me)\b", "them"))]
# A clause of its own after "and"/"but" keeps its verb-first form: "… and I drink it daily" → "… and drinks it daily".
_CLAUSES = re.compile(r"(,?\s+(?:and|but|or|so|then)\s+)(?=I\b|I['’])")

_ZH_TIME_FIRST = re.compile(rf"^(?P<when>{_ZH_NEAR}|{_ZH_AHEAD}|{_ZH_PAST})[，,]?\s*我(?![们們])(?:的)?")
_ZH_I_FIRST = re.compile(r"^我(?![们們])(?:的)?")
_EN_TIME_FIRST = re.compile(rf"^(?P<when>{_EN_NEAR}|{_EN_AHEAD}|{_EN_PAST}),?\s+(?=(?:I|my)\b|I['’])", re.I)
# "My wife and I live in Lisbon": a subject of two is not the person alone, and is left in their words;
# so is "I'm Sam" (or "I'm American"): a name or a nationality, which no rule can tell apart.
_LEFT_AS_SAID = re.compile(r"^(?i:my)\s[^,.;]*?\sand\s(?:I|me)\b"
                           r"|^I(?:'m|’m| am)\s+[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+){0,2}$")


def third_person(text: str) -> str:
    """A first-person fact worded as an item ("I don't drink" → "Doesn't drink"); any other text as it is."""
    # What is quoted is kept as said, a title ("My Struggle") or someone's words ('Mum says "I worry"') alike.
    quoted: list[str] = []

    def set_apart(m: re.Match[str]) -> str:
        quoted.append(m[0])
        return chr(_PLACEHOLDER + len(quoted) - 1)

    said = QUOTED.sub(set_apart, _PRIVATE.sub("", text)).strip() if len(QUOTED.findall(text)) < _MAX_QUOTED else text
    chinese = _ZH_I_FIRST.match(said) or _ZH_TIME_FIRST.match(said)
    worded = (_zh(said) if chinese else _en(said)).rstrip(" .!。！")
    if not worded or worded == said.rstrip(" .!。！") and not chinese:
        return text
    return _PRIVATE.sub(lambda m: quoted[ord(m[0]) - _PLACEHOLDER], worded)


_PLACEHOLDER, _MAX_QUOTED = 0xE000, 0x100
_PRIVATE = re.compile("[\ue000-\uf8ff]")


def _zh(text: str) -> str:
    m = _ZH_TIME_FIRST.match(text)
    rest = m["when"] + text[m.end():] if m else _ZH_I_FIRST.sub("", text, count=1)
    return re.sub(r"(?<![自忘])我的", "自己的", rest)  # 我的 later on is the person's own: 自己的


def _en(text: str) -> str:
    when = ""
    if m := _EN_TIME_FIRST.match(text):  # "Today I'm stressed" → "Feeling stressed today"
        when, text = " " + m["when"].lower(), text[m.end():]
    if _LEFT_AS_SAID.match(text.rstrip(" .!")) or not (_MY.match(text) or _I_VERB.match(text) or _head_of(text)):
        return m.string if m else text
    # [clause, conjunction, clause, …]: "I love tea and I drink it daily"; a "my …" subject is one clause
    pieces = [text] if _MY.match(text) else _CLAUSES.split(text)
    worded = ""
    for i, piece in enumerate(pieces):
        if i % 2:
            worded += piece
            continue
        clause = _head(piece)
        clause = clause if i == 0 else clause[:1].lower() + clause[1:]
        worded += _later(clause)
    return worded[:1].upper() + worded[1:].rstrip(" .!") + when


def _head_of(text: str) -> tuple[re.Pattern[str], str] | None:
    return next(((p, w) for p, w in _HEADS if p.match(text)), None)


def _head(clause: str) -> str:
    """A clause's first-person head in the third person: "I don't drink" → "Doesn't drink"."""
    if head := _head_of(clause):
        pattern, wording = head
        return pattern.sub(wording, clause, count=1)
    if m := _I_VERB.match(clause):
        return m["how"] + _third(m["verb"]) + clause[m.end():]
    return _MY.sub("", clause, count=1)


def _later(text: str) -> str:
    """First-person words after the head, as the person's: "my job" → "their job", "me" → "them"."""
    for pattern, wording in _LATER:
        text = pattern.sub(wording, text)
    return text


def _third(verb: str) -> str:
    """A verb's third-person singular present: "work" → "works", "study" → "studies"; the past as it is."""
    low = verb.lower()
    if low in _UNCHANGED or (low.endswith("ed") and not low.endswith("eed")):
        return verb
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if re.search(r"(?:s|sh|ch|x|z|o)$", low):
        return verb + "es"
    if re.search(r"[^aeiou]y$", low):
        return verb[:-1] + "ies"
    return verb + "s"


_IRREGULAR = {"have": "has", "be": "is", "am": "is"}
