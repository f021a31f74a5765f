"""Whether an entry gives someone else's words: a line or a view the text itself attributes to another.

An entry is a fact about the author, in the third person with no subject ("Thinks most meetings could
be an email", 觉得远程办公效率更高). One that names who said or thinks it gives another's words, not the
author's, as far as the text alone can show:

- **a quotation with its speaker**: `"Ship it," said Tom`, `Tom said: "…"`, 妈妈说“…”, “…”，朋友说, or a
  line signed with a dash (`"Stay hungry" — Steve Jobs`, “…”——乔布斯). A quotation the author says
  ("Often says “less is more”") has no speaker of its own, and stays; a title (《…》) is no one's line;
- **a view given to another**: it opens with "According to …", "As Naval puts it", "In Ada's words", or
  with a speaker and a verb of saying or thinking ("Tom says …", "The author argues …", "My therapist
  thinks …", 老板认为…, 妈妈说…). A text opening with an adverb ("Often says …") or with everyone or
  nobody ("Nobody thinks …", 人人都说…) is the author's own saying.

A people entry ("Ines — sister, says she is moving") is about someone else by nature: it is not judged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from hylo_memory.decay import Dimension

from .quotations import SPEAKING, ZH_SPEAKING
from .standalone import why_not_alone
from .standalone_zh import a_person

OTHERS_WORDS = "someone else's words: a line or a view the text gives to another, not the person's"

_QUOTED = re.compile(r"\"[^\"]+\"|“[^”]+”|«[^»]+»|‘[^’]+’(?!\w)|「[^」]+」|『[^』]+』|＂[^＂]+＂")
_NAME = r"[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,3}"
_SPEAKER = rf"(?:{_NAME}|he|she|they|(?:my|his|her|their|our|the|a|an)\s+[\w-]+)"
# Words that open a text and look like a speaker ("Often says …"): the author's own habits of speech.
_NOT_SPEAKERS = frozenset(
    "often always sometimes usually once still also never rarely seldom ever even now again really truly "
    "everyone everybody nobody someone somebody people no one it this that".split())
_SAID_AFTER = re.compile(
    rf"^\s*[,，]?\s*(?:(?:{SPEAKING})\s+(?P<named>{_SPEAKER})|(?P<who>{_SPEAKER})\s+(?:{SPEAKING}))\b")
_SAID_BEFORE = re.compile(rf"(?P<who>{_SPEAKER})\s+(?:{SPEAKING})\s*[,:]?\s*$")
_ZH_SAID_AFTER = re.compile(rf"^\s*[,，]?\s*(?P<who>[\u4e00-\u9fff]{{1,5}}?)(?:{ZH_SPEAKING})")
_ZH_SAID_BEFORE = re.compile(rf"(?P<who>[\u4e00-\u9fff]{{1,5}})(?:{ZH_SPEAKING})\s*[：:，,]?\s*$")
_SIGNED = re.compile(r"^\s*(?:[—–]{1,2}|--)\s*(?:[A-Z][\w.'’-]*(?:\s+[A-Z][\w.'’-]*){0,3}|[\u4e00-\u9fff·]{2,8})\s*$")
_ATTRIBUTED = re.compile(
    rf"^(?:according to\b|as {_NAME} (?:puts|put|says|said|writes|wrote|argues|argued) it\b|"
    rf"in {_NAME}['’]s words\b|quoting\s)", re.IGNORECASE)
_VIEW_VERBS = (r"says|said|thinks|thought|believes|believed|argues|argued|claims|claimed|writes|wrote|insists|"
               r"insisted|reckons|suggests|suggested|points out|pointed out|tells|told|notes|noted|feels|felt|"
               r"recommends|recommended|swears|maintains")
_VIEW = re.compile(
    rf"^(?P<who>(?:The|My|His|Her|Their|Our|An?)\s+[\w-]+|[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?|He|She|They)"
    rf"\s+(?:{_VIEW_VERBS})\b")
_ZH_VIEW = re.compile(
    r"^(?P<who>[\u4e00-\u9fff]{1,6}?)(?:说|說|认为|認為|觉得|覺得|表示|指出|提到|强调|強調|主张|主張|建议|建議|写道|寫道|"
    r"相信|坚信|堅信)")


def why_not_kept(text: str, dimension: Dimension, author: Sequence[str] = ()) -> str | None:
    """Why an entry's text cannot be kept (it does not stand alone, or it gives another's words), or None.
    `author`: the person's names — "Caroline believes …" in Caroline's memory is her own view."""
    alone = why_not_alone(text)
    if alone is not None or dimension is Dimension.people:
        return alone
    return OTHERS_WORDS if others_words(text, author) else None


def others_words(text: str, author: Sequence[str] = ()) -> bool:
    """Whether the text gives someone else's words or view (see the module's rules); never the author's own."""
    text = " ".join(text.split())
    view = _VIEW.match(text)
    if view is not None and _the_author(view["who"], author):
        view = None
    if _ATTRIBUTED.match(text) or _a_speaker(view) or _zh_speaker(_ZH_VIEW.match(text)):
        return True
    for quoted in _QUOTED.finditer(text):
        before, after = text[: quoted.start()], text[quoted.end():]
        if (_SIGNED.match(after) or _a_speaker(_SAID_AFTER.match(after))
                or _a_speaker(_SAID_BEFORE.search(before)) or _zh_speaker(_ZH_SAID_AFTER.match(after))
                or _zh_speaker(_ZH_SAID_BEFORE.search(before))):
            return True
    return False


def _the_author(who: str, author: Sequence[str]) -> bool:
    """Whether `who` names the author: one of their names, or its first word ("Sam" of "Sam Lee")."""
    who = who.casefold()
    return any(who in (name.casefold(), name.split()[0].casefold()) for name in author if name.strip())


def _a_speaker(match: re.Match[str] | None) -> bool:
    """Whether a match names a speaker: not an adverb nor everyone ("Often says", "Nobody thinks")."""
    who = next((g for g in match.groupdict().values() if g), None) if match is not None else None
    if who is None:
        return False
    first = who.split()[0].casefold()
    return not first.endswith("ly") and first not in _NOT_SPEAKERS and who.casefold() not in _NOT_SPEAKERS


def _zh_speaker(match: re.Match[str] | None) -> bool:
    """Whether a Chinese match names a speaker: 他/她, or a word for a person (老板, 妈妈, 朋友, 作者)."""
    return match is not None and (match["who"] in {"他", "她", "他们", "她们"} or a_person(match["who"]))
