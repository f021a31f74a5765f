"""What a question asks (docs/spec.md §9.2): the words it is about, whether it is about the person, the
dimensions its words point to, and the people it names. Recall ranks and falls silent by these. Pure.

English and Chinese. Chinese has no spaces: its question and function words ("我", "什么", "哪里") are cut out
before the rest is paired into terms, so "我住在哪里" is searched by "住" and not by "在哪".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import NamedTuple

from hylo_memory.domain.dimensions import Dimension

from ..words import RUN, fold, stem

# English words a question is made of rather than about, beside recall's stop words ("what", "my").
QUESTION_WORDS = frozenset(
    "about all also am any anything can could did doing done how just lately now right currently recently "
    "should there these those usually whom whose why would".split()
)
# Words that say what kind of thing is asked, not what about: sharing one of them is no sign that an item answers
# ("favourite colour" and "Favourite film is In the Mood for Love"). A question of nothing else is searched by them.
GENERIC_WORDS = frozenset(
    "believe believes call called favorite favourite feel feeling feels get go goal goals kind like likes love "
    "loves name named opinion plan plans prefer prefers think thinks thing things type use uses view want wants "
    "know tell".split()
)
# Chinese question and function words: cut out of a query (longest first) before its characters are paired.
CJK_QUESTION = (
    "为什么", "怎么样", "怎么看", "是不是", "有没有", "什么", "哪里", "哪儿", "哪些", "哪个", "多少", "怎么", "怎样",
    "我们", "我家的", "我的", "一般", "现在", "目前", "最近", "我", "你", "吗", "呢", "吧", "了", "的", "是", "在",
    "谁", "哪", "几", "有", "啊", "呀", "么",
)
CJK_GENERIC = ("喜欢", "觉得", "认为", "看法", "想法", "名字", "打算", "计划", "目标", "想", "叫", "做")
_CJK_CUT = re.compile("|".join(map(re.escape, sorted(CJK_QUESTION, key=len, reverse=True))))
_CJK_GENERIC_CUT = re.compile("|".join(map(re.escape, sorted(CJK_GENERIC, key=len, reverse=True))))

# The person asking: "I", "my", "me", "mine", "myself" (and "I'm", "I've"), 我 (我的, 我们 too).
_SELF = re.compile(r"(?<![\w'’])(i|my|me|mine|myself)(?![\w])|我", re.IGNORECASE)

# A light prior a dimension's cue words give its items (docs/spec.md §9.2), English and Chinese. Longest phrases are
# tried first, and a word taken by one is not read again ("working on" is a goal, not a job).
CUES: dict[Dimension, tuple[str, ...]] = {
    Dimension.goals: ("working on", "want", "wants", "plan", "plans", "planning", "goal", "goals", "hope",
                      "aim", "trying", "next", "忙", "想", "计划", "打算", "目标", "准备"),
    Dimension.identity: ("work", "works", "job", "career", "live", "lives", "living", "school", "study", "studied",
                         "university", "name", "old", "age", "born", "grew up", "speak", "language",
                         "languages", "工作", "职业", "住", "上学", "学校", "名字", "叫", "多大", "年龄", "出生",
                         "长大", "语言", "老家"),
    Dimension.state: ("feel", "feeling", "lately", "mood", "stressed", "stress", "tired", "sleep", "sleeping",
                      "these days", "this week", "最近", "心情", "感觉", "压力", "累", "睡", "状态"),
    Dimension.preferences: ("like", "likes", "favourite", "favorite", "prefer", "prefers", "love", "enjoy",
                            "hate", "dislike", "喜欢", "爱", "偏好", "讨厌", "爱吃"),
    Dimension.beliefs: ("think", "believe", "opinion", "view", "views", "feel about", "stance", "认为", "觉得",
                        "看法", "怎么看", "观点", "相信", "想法"),
    Dimension.people: ("who", "whom", "who's", "partner", "wife", "husband", "mother", "mum", "mom", "father",
                       "dad", "parents", "brother", "sister", "sibling", "friend", "friends", "manager", "boss",
                       "colleague", "doctor", "landlord", "teacher", "coach", "neighbour", "neighbor", "cousin",
                       "grandmother", "grandfather", "son", "daughter", "girlfriend", "boyfriend", "谁", "妈",
                       "爸", "父亲", "母亲", "弟弟", "哥哥", "姐姐", "妹妹", "朋友", "同事", "老板", "老师",
                       "伴侣", "男朋友", "女朋友", "老公", "老婆", "表哥", "表姐", "外婆", "奶奶", "爷爷", "外公",
                       "室友"),
}


_CUE_OF = {word: dimension for dimension, words in CUES.items() for word in words}
# One pattern, longest cue first: at each place the longest cue is taken, and its words are not read again.
_CUE = re.compile("|".join(re.escape(w) if not w.isascii() else r"(?<![\w'’])" + re.escape(w) + r"(?!\w)"
                           for w in sorted(_CUE_OF, key=len, reverse=True)))

# A person's item names them before its dash: "Ines — sister", "妈 — 母亲，住在老家", "Dr. Almeida: GP".
_NAMED = re.compile(r"^\s*([^—–:：]{1,60}?)\s*(?:—|–| - |:|：)")
_TITLES = frozenset("dr mr mrs ms miss prof sir".split())


def normal(text: str) -> str:
    """A query as its words are read: compatibility forms folded (NFKC) and case folded."""
    return unicodedata.normalize("NFKC", text).casefold()


def without_cjk_function_words(query: str, generic: bool = False) -> str:
    """The query with its Chinese question and function words cut out (and with `generic`, the words that say what
    kind of thing is asked): what is left is paired into terms."""
    cut = _CJK_CUT.sub(" ", normal(query))
    return _CJK_GENERIC_CUT.sub(" ", cut) if generic else cut


def about_self(query: str) -> bool:
    """Whether the question is about the person asking ("what is my job?", "我住在哪里？")."""
    return _SELF.search(unicodedata.normalize("NFKC", query)) is not None


def cues(query: str) -> frozenset[Dimension]:
    """The dimensions the question's cue words point to; a phrase takes its words ("working on": goals alone)."""
    return frozenset(_CUE_OF[m[0]] for m in _CUE.finditer(normal(query)))


def item_name(text: str) -> str | None:
    """The name a person's item gives before its dash ("Ines — sister": "Ines"), if any."""
    match = _NAMED.match(text)
    return match[1].strip() if match else None


def _name_words(name: str) -> set[str]:
    return {fold(m[0]) for m in RUN.finditer(name)} - _TITLES


def names(query: str, name: str) -> bool:
    """Whether the question names this person: every word of a Latin name but a title ("Almeida" names "Dr.
    Almeida"), or a Chinese name as written ("我妈住在哪里" names "妈")."""
    text = normal(query)
    if _is_cjk(name):
        return normal(name) in text
    wanted = _name_words(normal(name))
    return bool(wanted) and wanted <= {fold(m[0]) for m in RUN.finditer(text)}


def _is_cjk(name: str) -> bool:
    return any(m[1] is not None for m in RUN.finditer(name))


SELF_WEIGHT = 0.7  # a people item's score in a question about the person that names no one and asks for no one
CUE_WEIGHT = 1.3  # an item's score when the question's cue words point to its dimension
NAMED_WEIGHT = 1.5  # a person's item's score when the question names them


class Asked(NamedTuple):
    """What a question asks, as ranking reads it."""

    about_self: bool
    cues: frozenset[Dimension]
    named: frozenset[int]  # the positions of the people items it names
    only_named: bool  # "who is X": nothing asked but who X is

    def weight(self, at: int, dimension: Dimension) -> float:
        """The prior an item's score is multiplied by: its dimension's cue, the person's own items first."""
        if at in self.named:
            return NAMED_WEIGHT
        weight = CUE_WEIGHT if dimension in self.cues else 1.0
        if dimension is Dimension.people and self.about_self and not self.named and Dimension.people not in self.cues:
            weight *= SELF_WEIGHT
        return weight


def asked(query: str, dimensions: Sequence[Dimension], texts: Sequence[str], content: Sequence[str]) -> Asked:
    """What `query` asks of the items (`dimensions` and `texts`, one each); `content`: its content terms."""
    named: set[int] = set()
    name_terms: set[str] = set()
    for at, (dimension, text) in enumerate(zip(dimensions, texts, strict=True)):
        if dimension is Dimension.people and (name := item_name(text)) and names(query, name):
            named.add(at)
            name_terms |= set(_cjk_pairs(name)) if _is_cjk(name) else {stem(w) for w in _name_words(normal(name))}
    only = bool(named) and all(term in name_terms for term in content)
    return Asked(about_self(query), cues(query), frozenset(named), only)


def _cjk_pairs(name: str) -> list[str]:
    """A Chinese name's terms as recall pairs them (a name of one character is itself)."""
    name = normal(name)
    return [name] if len(name) == 1 else [name[i:i + 2] for i in range(len(name) - 1)]
