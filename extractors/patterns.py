"""First-person statement patterns: the offline extractor's whole knowledge.

Each pattern turns a sentence the author wrote about themselves into the wording
of a memory item ("I live in Lisbon" → "Lives in Lisbon"). Honest and narrow:
what it does not recognise, it leaves alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from hylo_memory.decay import Dimension
from hylo_memory.decay.model import MAX_ITEM_TEXT, clean_text

RELATIONS = (
    "sister", "brother", "mother", "mom", "mum", "father", "dad", "partner", "wife", "husband",
    "boyfriend", "girlfriend", "fiancé", "fiancée", "fiance", "fiancee", "son", "daughter", "cousin",
    "aunt", "uncle", "grandmother", "grandfather", "grandma", "grandpa", "niece", "nephew",
    "friend", "best friend", "manager", "boss", "colleague", "coworker", "co-worker", "cofounder",
    "co-founder", "mentor", "therapist", "coach", "roommate", "flatmate", "neighbour", "neighbor",
    "teacher", "doctor", "landlord", "client",
)
MOODS = (
    "stressed", "exhausted", "tired", "anxious", "overwhelmed", "burned out", "burnt out", "happy",
    "excited", "calm", "motivated", "sad", "lonely", "frustrated", "nervous", "worried", "restless",
    "relieved", "energised", "energized", "drained", "sick", "ill", "grateful", "proud", "stuck",
)

_NAME = r"[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+){0,2}"
_PLACE = r"[A-Z][\w'’-]+(?:[\s,]+[A-Z][\w'’-]+){0,2}"
_REST = r"(?P<rest>[^.;!?\n]{2,90}?)"
# A statement ends at a clause break: what follows a comma or a dash is usually commentary.
_END = r"\s*(?:[;!?\n(]|[.:,](?=\s|$)|\s[—–-]\s|\s+but\b|\s+because\b|$)"
_I_AM = r"I(?:'m|’m| am)"

_LIST_BREAK = re.compile(r",\s*|,?\s+and\s+")

Rule = tuple[Dimension, re.Pattern[str], Callable[[re.Match[str]], str]]


def _rule(dimension: Dimension, pattern: str, word: Callable[[re.Match[str]], str]) -> Rule:
    # Case-insensitive, except the (?-i:…) groups that must see a capital (names, places).
    return dimension, re.compile(pattern, re.IGNORECASE), word


def _cap(text: str) -> str:
    text = " ".join(text.split()).strip(" ,:-—")
    return text[:1].upper() + text[1:]


def _rest(m: re.Match[str]) -> str:
    return m.group("rest").strip()


_PEOPLE = "|".join(sorted((re.escape(r) for r in RELATIONS), key=len, reverse=True))
_MOOD = "|".join(sorted((re.escape(m) for m in MOODS), key=len, reverse=True))

RULES: list[Rule] = [
    # identity
    _rule(Dimension.identity, rf"\bmy name is (?-i:(?P<name>{_NAME}))", lambda m: f"Name is {m['name']}"),
    _rule(Dimension.identity, rf"\bI work as (?:an? )?(?P<role>[\w -]{{2,40}}?) (?:at|for) (?-i:(?P<org>{_NAME})){_END}",
          lambda m: f"Works as {_article(m['role'])} at {m['org']}"),
    _rule(Dimension.identity, rf"\b{_I_AM} an? (?P<role>[\w -]{{2,40}}?) at (?-i:(?P<org>{_NAME})){_END}",
          lambda m: f"Works as {_article(m['role'])} at {m['org']}"),
    _rule(Dimension.identity, rf"\bI work at (?-i:(?P<org>{_NAME}))", lambda m: f"Works at {m['org']}"),
    _rule(Dimension.identity, rf"\bI (?:live|am living|'m living) in (?-i:(?P<place>{_PLACE}))",
          lambda m: f"Lives in {m['place']}"),
    _rule(Dimension.identity, rf"\bI (?:moved|relocated) to (?-i:(?P<place>{_PLACE}))", lambda m: f"Lives in {m['place']}"),
    _rule(Dimension.identity, rf"\b{_I_AM} from (?-i:(?P<place>{_PLACE}))", lambda m: f"Is from {m['place']}"),
    _rule(Dimension.identity, r"\bI speak (?-i:(?P<langs>[A-Z]\w+(?:(?:,\s*|,? and\s+)[A-Z]\w+)*))",
          lambda m: "Speaks " + _listed(sorted(_LIST_BREAK.split(m["langs"])))),
    # preferences
    _rule(Dimension.preferences, rf"\bI (?:really |truly )?(?P<verb>love|like|enjoy|adore) {_REST}{_END}",
          lambda m: f"{_third(m['verb'])} {_rest(m)}"),
    _rule(Dimension.preferences, rf"\bI (?:much |really )?prefer {_REST}{_END}", lambda m: f"Prefers {_rest(m)}"),
    _rule(Dimension.preferences, rf"\bI (?:really )?(?:hate|dislike|can't stand|cannot stand|can’t stand) {_REST}{_END}",
          lambda m: f"Dislikes {_rest(m)}"),
    _rule(Dimension.preferences, rf"\bmy favou?rite (?P<what>[\w -]{{2,30}}?) is {_REST}{_END}",
          lambda m: f"Favourite {m['what']}: {_rest(m)}"),
    _rule(Dimension.preferences, r"\bI (?:always |mostly )?use (?-i:(?P<tool>[A-Z][\w.+#-]*(?:\s+[A-Z][\w.+#-]*)?))",
          lambda m: f"Uses {m['tool']}"),
    _rule(Dimension.preferences, rf"\b{_I_AM} (?:a )?(?P<diet>vegetarian|vegan|pescatarian)\b", lambda m: f"Is {m['diet'].lower()}"),
    # goals
    _rule(Dimension.goals, rf"\bI (?:really )?want to {_REST}{_END}", lambda m: f"Wants to {_rest(m)}"),
    _rule(Dimension.goals, rf"\bmy goal (?:is|for [\w ]+ is) to {_REST}{_END}", lambda m: f"Goal: {_rest(m)}"),
    _rule(Dimension.goals, rf"\b{_I_AM} (?:currently |still )?working on {_REST}{_END}", lambda m: f"Working on {_rest(m)}"),
    _rule(Dimension.goals, rf"\bI(?: plan|'m planning|’m planning| am planning) to {_REST}{_END}", lambda m: f"Plans to {_rest(m)}"),
    # beliefs
    _rule(Dimension.beliefs, rf"\bI (?:strongly |firmly |really )?believe(?: that)? {_REST}{_END}",
          lambda m: f"Believes {_rest(m)}"),
    _rule(Dimension.beliefs, rf"\bI (?:really )?think that {_REST}{_END}", lambda m: f"Thinks {_rest(m)}"),
    _rule(Dimension.beliefs, rf"\b{_I_AM} convinced(?: that)? {_REST}{_END}", lambda m: f"Is convinced {_rest(m)}"),
    # people
    _rule(Dimension.people, rf"\bmy (?P<rel>{_PEOPLE}),? (?-i:(?P<name>[A-Z][\w'’-]+))\b",
          lambda m: f"{m['name']} — {m['rel'].lower()}"),
    _rule(Dimension.people, rf"(?-i:\b(?P<name>[A-Z][\w'’-]+)),? my (?P<rel>{_PEOPLE})\b",
          lambda m: f"{m['name']} — {m['rel'].lower()}"),
    # state
    _rule(Dimension.state,
          rf"\bI(?:'m|’m| am| feel| felt|'ve been| have been| was)(?: so| really| very| a bit| quite| pretty| completely| totally)* (?P<mood>{_MOOD})\b(?:\s+(?P<prep>about|by|with|after|from|because of) {_REST}{_END})?",
          lambda m: f"Feeling {m['mood'].lower()}" + (f" {m['prep']} {m['rest'].strip()}" if m["rest"] else "")),
    _rule(Dimension.state, rf"\bI feel (?!like\b)(?!(?:so |really |very |a bit |quite |pretty )*(?:{_MOOD})\b){_REST}{_END}", lambda m: f"Feels {_rest(m)}"),
]


def _listed(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _third(verb: str) -> str:
    return {"love": "Loves", "like": "Likes", "enjoy": "Enjoys", "adore": "Adores"}[verb.lower()]


def _article(role: str) -> str:
    role = role.strip()
    return f"{'an' if role[:1].lower() in 'aeiou' else 'a'} {role}"


# A wording still speaking in the first person ("more than I expected") is not
# an item yet; "my" reads naturally as "their".
_FIRST_PERSON = re.compile(r"\b(?:I|I'[a-z]+|I’[a-z]+|me|myself|we|us)\b")
_MY = re.compile(r"\bmy\b", re.IGNORECASE)

# Curly single quotes too: ‘ only ever opens a quotation, and its closing ’ is the one
# not followed by a letter (inside, ’ is an apostrophe: ‘I’m tired,’ she said).
# Straight single quotes are left alone: they are apostrophes far too often.
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|«[^»]*»|‘[^\n]*?’(?!\w)")
# "If I moved to Berlin": what follows is supposed, not stated.
_SUPPOSED = re.compile(r"\b(?:if|unless|whether|suppose|supposing|imagine|in case)\s*$", re.IGNORECASE)
# "Loves it": an object that is only a pronoun means nothing outside its note.
_PRONOUN_ONLY = re.compile(r"^\S+ (?:it|this|that|them|these|those|him|her)$", re.IGNORECASE)


def own_sentences(text: str) -> list[str]:
    """The author's own lines: quotations and block quotes are someone else's words."""
    lines = [line for line in text.splitlines() if not line.lstrip().startswith(">")]
    return [s for s in re.split(r"(?<=[.!?])\s+|\n+", _QUOTED.sub(" ", "\n".join(lines))) if s.strip()]


def statements(text: str) -> list[tuple[Dimension, str]]:
    """Every (dimension, item wording) the patterns find in the author's own sentences."""
    found: dict[tuple[Dimension, str], None] = {}
    for sentence in own_sentences(text):
        # Escape codes and control characters out first: "\x1b[1mLisbon" must read as "Lisbon".
        sentence = clean_text(sentence).lstrip("-*• ").strip()
        if sentence.endswith("?"):
            continue  # a question asks; it states nothing
        for dimension, pattern, word in RULES:
            for match in pattern.finditer(sentence):
                if _SUPPOSED.search(sentence[: match.start()]):
                    continue
                wording = _cap(_MY.sub("their", word(match)))
                if _is_item(wording):
                    found[(dimension, wording)] = None
    return list(found)


def _is_item(wording: str) -> bool:
    """Whether a wording reads as a memory item on its own."""
    # Well under MAX_ITEM_TEXT: a longer "statement" is a paragraph the patterns misread.
    return 3 <= len(wording) <= min(120, MAX_ITEM_TEXT) and not _FIRST_PERSON.search(wording) and not _PRONOUN_ONLY.match(wording)
