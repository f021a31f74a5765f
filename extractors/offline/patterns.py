"""First-person statement patterns: the offline extractor's whole knowledge.

Each pattern turns a sentence the author wrote about themselves into the wording
of a memory item ("I live in Lisbon" → "Lives in Lisbon"). Honest and narrow:
what it does not recognise, it leaves alone.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

from hylo_memory.decay import Dimension
from hylo_memory.decay.match import normalise
from hylo_memory.domain.dimensions import clean_text
from hylo_memory.domain.items import MAX_ITEM_TEXT

from .quotations import SPEECH_END, Quotations, holds_speech
from .relations import RELATIONS as RELATIONS  # re-exported: the patterns speak of people by them
from .standalone import stands_alone
from .standalone_zh import ZH_SURNAME as _ZH_SURNAME

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
# "I'm stressed about it" is "Feeling stressed": the pronoun means nothing outside its note.
_OBJECT_PRONOUN = r"(?:(?:it|this|that|them|these|those|him)\b(?!\s+(?:when|if|that)\b)|her\b(?=\s*(?:[.;:,!?]|$)))"

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
    # "I work in Beijing as a software engineer" and "I work as a software engineer in Beijing" are one fact.
    _rule(Dimension.identity, rf"\bI work in (?-i:(?P<place>{_PLACE})) as (?:an? )?(?P<role>[\w -]{{2,40}}?){_END}",
          lambda m: f"Works as {_article(m['role'])} in {m['place']}"),
    _rule(Dimension.identity, rf"\bI work as (?:an? )?(?P<role>[\w -]{{2,40}}?) in (?-i:(?P<place>{_PLACE})){_END}",
          lambda m: f"Works as {_article(m['role'])} in {m['place']}"),
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
    # A liking that ended is a change worth keeping ("No longer likes cold brew" replaces "Loves cold brew");
    # a plain "I don't like X" is not read: a negation alone is too often a passing remark.
    _rule(Dimension.preferences, rf"\bI (?:do not|don't|don’t) (?:really )?(?P<verb>like|love|enjoy) {_REST}\s+any ?more{_END}",
          lambda m: f"No longer {_third(m['verb']).lower()} {_rest(m)}"),
    _rule(Dimension.preferences, rf"\bI (?:really )?no longer (?:really )?(?P<verb>like|love|enjoy|adore) {_REST}(?:\s+any ?more)?{_END}",
          lambda m: f"No longer {_third(m['verb']).lower()} {_rest(m)}"),
    _rule(Dimension.preferences, rf"\bI(?:'ve|’ve| have)? stopped (?P<verb>liking|loving|enjoying) {_REST}(?:\s+any ?more)?{_END}",
          lambda m: f"No longer {_third(m['verb']).lower()} {_rest(m)}"),
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
    # A sentence's first word is capitalised as any is: without a comma ("Called my brother") it is no name.
    _rule(Dimension.people, rf"(?-i:(?:(?<=\w\s)|(?=\w+,))\b(?P<name>[A-Z][\w'’-]+)),? my (?P<rel>{_PEOPLE})\b",
          lambda m: f"{m['name']} — {m['rel'].lower()}"),
    # state
    _rule(Dimension.state,
          rf"\bI(?:'m|’m| am| feel| felt|'ve been| have been| was)(?: so| really| very| a bit| quite| pretty| completely| totally)* (?P<mood>{_MOOD})\b(?:\s+(?P<prep>about|by|with|after|from|because of) (?!{_OBJECT_PRONOUN}){_REST}{_END})?",
          lambda m: f"Feeling {m['mood'].lower()}" + (f" {m['prep']} {m['rest'].strip()}" if m["rest"] else "")),
    _rule(Dimension.state, rf"\bI feel (?!like\b)(?!(?:so |really |very |a bit |quite |pretty )*(?:{_MOOD})\b){_REST}{_END}", lambda m: f"Feels {_rest(m)}"),
]


# Chinese: the same six kinds of first-person statement, worded in Chinese without the leading 我
# ("我住在北京" → "住在北京"), as the English ones drop "I". Chinese has no spaces and no capitals,
# so a statement ends at a clause break (，。；：！？ or 但是/因为/所以…), and 我 counts only as the
# author speaking: not in 我们 ("we"), not after a verb or preposition that makes it an object
# (她说我…, 对我…, 让我…), not in 自我 ("self").
ZH_RELATIONS = (
    "妹妹", "姐姐", "哥哥", "弟弟", "妈妈", "母亲", "爸爸", "父亲", "朋友", "好朋友", "最好的朋友", "同事", "老板",
    "丈夫", "老公", "妻子", "老婆", "太太", "男朋友", "女朋友", "未婚夫", "未婚妻", "伴侣", "儿子", "女儿", "导师",
    "经理", "上司", "室友", "邻居", "表哥", "表姐", "表弟", "表妹", "堂哥", "堂姐", "爷爷", "奶奶", "外公", "外婆",
    "姥姥", "姥爷", "叔叔", "阿姨", "舅舅", "姑姑", "医生", "老师", "教练", "合伙人",
)
ZH_MOODS = (
    "累", "心累", "疲惫", "疲倦", "困", "焦虑", "紧张", "开心", "高兴", "快乐", "难过", "伤心", "沮丧", "烦", "烦躁",
    "心烦", "烦恼", "郁闷", "兴奋", "激动", "孤独", "寂寞", "失落", "迷茫", "崩溃", "担心", "害怕", "生气", "不舒服",
    "生病了", "病了", "感冒了", "轻松", "放松", "平静", "满足", "感激", "自豪", "骄傲", "无聊", "忙", "精疲力尽",
    "筋疲力尽", "不开心", "不高兴", "压力大", "压力很大", "压力好大", "压力特别大", "压力非常大", "压力太大",
    "压力有点大", "压力比较大", "压力挺大", "心情很好", "心情不错", "心情不好", "心情很差", "心情很糟",
)
_HAN = r"\u3400-\u4dbf\u4e00-\u9fff"
# A Chinese name ends where a verb, an adverb or a particle starts, or at a clause break.
_ZH_NAME_STOP = r"(?=[在是说和跟很也都要会来去给住的了今明昨刚又还就不没已想对把被让叫打回带问喜，,。！？!?、；;：:\s]|$)"
# A name in Latin letters among Chinese ("我的朋友Ana住在里斯本"): letters only, so it stops at the Chinese.
_ZH_LATIN_NAME = r"(?-i:[A-Z][A-Za-zÀ-ÖØ-öø-ÿ'’-]+)"
_ZH_NAME = rf"(?:{_ZH_SURNAME}[{_HAN}]{{1,2}}?{_ZH_NAME_STOP}|{_ZH_LATIN_NAME})"
_ZH_BREAK = r"[，,、；;：:。！？!?\n（(]"
_ZH_END = rf"(?={_ZH_BREAK}|但是?|可是|不过|因为|所以|而且|$)"
_ZH_REST = r"(?P<rest>[^，,、；;：:。！？!?\n（(]{1,40}?)"
_ZH_LONG_REST = r"(?P<rest>[^，,、；;：:。！？!?\n（(]{3,40}?)"
_ZH_I = r"(?<![自忘他她它你您说让对给跟和与叫被把帮使令请教诉问得于替为向像說讓對給與幫請訴問於為])我(?![们們])"
_ZH_FILLER = r"(?:真的|其实|也|还|一直|都|很|非常|特别|超级|超|挺|蛮|好)*"
_ZH_DEGREE = r"(?:真的|有点儿?|有些|非常|特别|十分|相当|比较|越来越|超级|很|好|太|真|挺|超|蛮|更|也|还|都)*"
_ZH_TIME = r"(?:最近|今天|今晚|今早|今天早上|这周|这个星期|这几天|这段时间|这阵子|现在|此刻|昨天|昨晚|这个月)"
_ZH_PRONOUN = r"(?:它|他|她|你|您|这个|那个|这样|那样|这|那|他们|她们|它们|你们)"
# A degree and a word or two, to the clause's end, with no subject: a comment on something the note names.
_ZH_COMMENT = (r"(?:也|还|都|就|倒|其实)?(?:很|非常|特别|比较|挺|蛮|太|真|超|十分|相当|有点儿?|有些)+(?!多|少)"
               r"[^，,、；;：:。！？!?\n（(]{1,4}(?:[，,、；;：:。！？!?\n（(]|$)")


def _alt(words: tuple[str, ...]) -> str:
    return "|".join(sorted(map(re.escape, words), key=len, reverse=True))


_ZH_PEOPLE = _alt(ZH_RELATIONS)
# What may stand between 最近/今天 and the mood: "我最近工作压力很大" → "最近工作压力很大".
_ZH_GAP = r"[^，,、；;：:。！？!?\n（(我让使令]{0,6}?"


def _zh_rest(m: re.Match[str]) -> str:
    return m.group("rest").strip()


def _zh_state(m: re.Match[str]) -> str:
    when = m["t1"] or m["t2"] or ""
    return when + (m["gap"] or "") + (m["feel"] or "") + m["degree"] + m["mood"] + (m["tail"] or "")


ZH_RULES: list[Rule] = [
    # identity
    _rule(Dimension.identity, rf"{_ZH_I}(?:的名字|的全名)(?P<verb>是|叫){_ZH_REST}{_ZH_END}",
          lambda m: f"名字{m['verb']}{_zh_rest(m)}"),
    _rule(Dimension.identity, rf"{_ZH_I}叫(?!{_ZH_PRONOUN}){_ZH_REST}{_ZH_END}", lambda m: f"叫{_zh_rest(m)}"),
    _rule(Dimension.identity, rf"{_ZH_I}(?:现在|目前|一直)?住在{_ZH_REST}{_ZH_END}", lambda m: f"住在{_zh_rest(m)}"),
    # 搬到 is worded as 住在, as "I moved to Porto" is "Lives in Porto": the new home supersedes the old.
    _rule(Dimension.identity, rf"{_ZH_I}(?:已经|刚刚?)?搬(?:家)?到了?{_ZH_REST}(?:去|来)?了?{_ZH_END}",
          lambda m: f"住在{_zh_rest(m)}"),
    # 在找工作 is looking for work: 找 is no place
    _rule(Dimension.identity, rf"{_ZH_I}(?:现在|目前)?在(?!找)(?P<place>[^，,、；;：:。！？!?\n（(我]{{1,20}}?)(?P<verb>工作|上班)",
          lambda m: f"在{m['place']}{m['verb']}"),
    _rule(Dimension.identity, rf"{_ZH_I}(?:现在|目前)?在(?P<place>[^，,、；;：:。！？!?\n（(我]{{1,20}}?)(?P<verb>当|担任){_ZH_REST}{_ZH_END}",
          lambda m: f"在{m['place']}{m['verb']}{_zh_rest(m)}"),
    _rule(Dimension.identity, rf"{_ZH_I}来自{_ZH_REST}{_ZH_END}", lambda m: f"来自{_zh_rest(m)}"),
    _rule(Dimension.identity, rf"{_ZH_I}(?:会说|能说){_ZH_REST}{_ZH_END}", lambda m: f"会说{_zh_rest(m)}"),
    _rule(Dimension.identity, rf"{_ZH_I}的母语是{_ZH_REST}{_ZH_END}", lambda m: f"母语是{_zh_rest(m)}"),
    # 我是…: a role or an origin, unless it is a diet (a preference, as "I'm vegetarian" is) or not a statement
    # at all (我是说 "I mean", 我是不是 "am I", 我是因为 "it is because I"). What follows must be a noun phrase
    # for a person (standalone_zh.describes_a_person): 我是直接拖到OneDrive备份的 is "I just dragged them".
    _rule(Dimension.identity,
          rf"{_ZH_I}是(?!说|說|指|不是|否|因为|因為|为了|為了|真的|不|怎么|怎麼|什么|什麼|谁|誰|在开玩笑"
          rf"|(?:一个|一名)?(?:素食|纯素|吃素)){_ZH_REST}{_ZH_END}",
          lambda m: f"是{_zh_rest(m)}"),
    # preferences
    _rule(Dimension.preferences, rf"{_ZH_I}是(?:一个|一名)?(?P<diet>素食者|素食主义者|纯素食者|纯素主义者|吃素的)",
          lambda m: f"是{m['diet']}"),
    _rule(Dimension.preferences, rf"{_ZH_I}{_ZH_FILLER}(?P<verb>吃素|不吃){_ZH_REST}?{_ZH_END}",
          lambda m: m["verb"] + (m["rest"] or "").strip()),
    _rule(Dimension.preferences, rf"{_ZH_I}最(?:喜欢|爱)的(?P<what>[^，,、；;：:。！？!?\n（(是]{{1,12}})是{_ZH_REST}{_ZH_END}",
          lambda m: f"最喜欢的{m['what']}是{_zh_rest(m)}"),
    _rule(Dimension.preferences, rf"{_ZH_I}{_ZH_FILLER}(?P<verb>(?:更|最)?(?:喜欢|爱(?!人)|热爱|享受|迷上了?))(?!的){_ZH_REST}{_ZH_END}",
          lambda m: m["verb"] + _zh_rest(m)),
    # 已经不喜欢 / 不再喜欢: a liking that ended ("no longer likes"), as "I stopped liking" is in English.
    _rule(Dimension.preferences,
          rf"{_ZH_I}{_ZH_FILLER}(?:已经)?(?P<verb>讨厌|不再喜欢|不喜欢|不再爱|不爱|受不了|厌恶|烦透了)(?!了?{_ZH_END}){_ZH_REST}{_ZH_END}",
          lambda m: m["verb"] + _zh_rest(m)),
    # goals
    _rule(Dimension.goals, rf"{_ZH_I}的(?P<what>目标|梦想|计划)是{_ZH_REST}{_ZH_END}", lambda m: f"{m['what']}是{_zh_rest(m)}"),
    # 我想 wants, unless it thinks (我想他是对的), misses (想念) or recalls (想起); 准备好 is "ready".
    _rule(Dimension.goals,
          rf"{_ZH_I}(?P<when>今年|明年|以后|将来|未来|这辈子)?(?:真的|很|一直|特别|也|还)*"
          rf"(?P<verb>想要|想(?![念起到想法象必通过])|打算|计划|准备(?!好)|希望|梦想)"
          rf"(?!{_ZH_PRONOUN}|应该|可能|大概|是|我){_ZH_REST}{_ZH_END}",
          lambda m: (m["when"] or "") + m["verb"] + _zh_rest(m)),
    _rule(Dimension.goals,
          rf"{_ZH_I}(?P<when>{_ZH_TIME}|现在|目前)?(?P<verb>正在|在)(?P<what>学习?(?![校院生])|准备|练习?|写|开发|攻读|研究|筹备|忙着?)"
          rf"{_ZH_REST}{_ZH_END}",
          lambda m: (m["when"] or "") + m["verb"] + m["what"] + _zh_rest(m)),
    # beliefs: 我觉得 + a mood is a state (below); an opinion about a day or someone is not a belief, nor is a
    # degree and a word or two with no subject (我觉得很有意思: what is?). The rest must claim something of its
    # own (standalone's NO_CLAIM): not 觉得是… or 觉得 + a noun phrase alone.
    _rule(Dimension.beliefs,
          rf"{_ZH_I}(?:一直|始终|真的|坚定地)?(?P<verb>坚信|相信|深信|认为|觉得)"
          rf"(?!{_ZH_DEGREE}(?:{_alt(ZH_MOODS)}))(?!{_ZH_PRONOUN}|明天|今天|今晚|天气|会下雨)"
          rf"(?!{_ZH_COMMENT}){_ZH_LONG_REST}{_ZH_END}",
          lambda m: m["verb"] + _zh_rest(m)),
    # people: 我的哥哥张伟, 我哥哥叫张伟, 张伟是我的哥哥, 张伟，我的哥哥 → "张伟 — 哥哥", as "Ines — sister"
    _rule(Dimension.people, rf"(?<!自)我(?!们)的?(?P<rel>{_ZH_PEOPLE})(?:叫|[，,]\s*)?(?P<name>{_ZH_NAME})",
          lambda m: f"{m['name']} — {m['rel']}"),
    _rule(Dimension.people, rf"(?<![{_HAN}])(?P<name>{_ZH_SURNAME}[{_HAN}]{{1,2}}|{_ZH_LATIN_NAME})\s*(?:是|[，,]\s*)我的?(?P<rel>{_ZH_PEOPLE})",
          lambda m: f"{m['name']} — {m['rel']}"),
    # state: 最近/今天… or a degree (很, 有点…) with a mood word; 我觉得/我感觉 + mood too
    _rule(Dimension.state,
          rf"(?:(?P<t1>{_ZH_TIME})[，,]?\s*{_ZH_I}|{_ZH_I}(?P<t2>{_ZH_TIME})?)"
          rf"(?P<gap>(?(t1){_ZH_GAP}|(?(t2){_ZH_GAP}|)))"
          rf"(?P<feel>觉得|感觉|感到)?(?P<degree>{_ZH_DEGREE})(?P<mood>{_alt(ZH_MOODS)})"
          rf"(?P<tail>死了|极了|坏了|透了|了)?(?:啊|呀|的|呢)?{_ZH_END}",
          _zh_state),
]
RULES += ZH_RULES


def _listed(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _third(verb: str) -> str:
    verb = {"loving": "love", "liking": "like", "enjoying": "enjoy"}.get(verb.lower(), verb.lower())
    return {"love": "Loves", "like": "Likes", "enjoy": "Enjoys", "adore": "Adores"}[verb]


def _article(role: str) -> str:
    role = role.strip()
    return f"{'an' if role[:1].lower() in 'aeiou' else 'a'} {role}"


# A wording still speaking in the first person ("more than I expected") is not
# an item yet; "my" reads naturally as "their".
_FIRST_PERSON = re.compile(r"\b(?:I|I'[a-z]+|I’[a-z]+|me|myself|we|us)\b|我")
_MY = re.compile(r"\bmy\b", re.IGNORECASE)
# In Chinese, 我的 reads as 自己的 ("喜欢我的工作" → "喜欢自己的工作").
_ZH_MY = re.compile(r"(?<![自忘])我的")

# "If I moved to Berlin": what follows is supposed, not stated.
_SUPPOSED = re.compile(r"\b(?:if|unless|whether|suppose|supposing|imagine|in case)\s*$"
                       # 如果/要是… reach to the clause's end; 他说：… reports someone else's words
                       r"|(?:如果|要是|假如|假设|假使|倘若|万一|除非)[^，,。；;！!？?]*$|说[：:]\s*$", re.IGNORECASE)
# A sentence about the text itself ("In this post I want to introduce Spark", "Here I want to show…", "This
# post will…", 本文想介绍…) says what the text sets out to do for its reader: no goal of the person's.
_TEXTS = (r"(?:blog )?(?:post|article|note|video|tutorial|guide|series|chapter|section|essay|piece|talk|episode|"
          r"newsletter|thread|write-?up|page|entry|lesson|course|presentation|walkthrough|part|issue)s?")
_ABOUT_THE_TEXT = re.compile(
    rf"\b(?:in|with|through|for) (?:this|today's|today’s|the following|the next|my next|this next) {_TEXTS}\b"
    rf"|\bthis {_TEXTS} (?:will|is going to|aims|tries|attempts|covers|explains|shows|is about|describes)\b"
    r"|(?:^|[,;:]\s*)(?:here|below),? I(?:'d| would)? (?:want|like|plan|am going|'m going|’m going|hope|will|'ll|’ll)\b"
    r"|\btoday,? I(?:'d| would)? (?:want|like|plan|am going|'m going|’m going|will|'ll|’ll) to (?:briefly |quickly )?"
    r"(?:share|talk|write|introduce|show|explain|discuss|cover|go over|walk)\b"
    r"|本文|本篇|本期|在这里我|在這裡我|下面我|接下来我|接下來我"
    r"|[这這]一?[篇期](?:文章|笔记|筆記|博客|博文|帖子|教程|视频|視頻)?(?:[里裡中]|[将將会會主要想])",
    re.IGNORECASE)
# A Chinese question need not end in ？: …吗, 是不是/想不想 (A-not-A), 为什么, 难道, 是否.
_ZH_QUESTION = re.compile(r"[吗嘛][。.!！\s]*$|([\u4e00-\u9fff])不\1|为什么|难道|是否")
class Sentences(NamedTuple):
    """A text's sentences: the author's own (titles set apart by `quotations`), and how many it has in all."""

    own: list[str]
    total: int
    quotations: Quotations


def own_sentences(text: str) -> Sentences:
    """The author's own sentences: block quotes, and sentences holding someone's speech, are someone else's."""
    lines = [line for line in text.splitlines() if not line.lstrip().startswith(">")]
    quotations = Quotations("\n".join(lines))
    # Chinese sentences end in 。！？ (and ；) with no space after them; a quotation may end one inside its marks.
    split = [s for s in re.split(rf"(?<=[.!?{SPEECH_END}])\s+|(?<=[。！？；…])\s*|\n+", quotations.text)
             if s.strip()]
    return Sentences([s for s in split if not holds_speech(s)], len(split), quotations)


def statements(text: str) -> list[tuple[Dimension, str]]:
    """Every (dimension, item wording) the patterns find in the author's own sentences."""
    return list(dict.fromkeys((dimension, wording) for dimension, wording, _ in _found(text)))


def whole_statement(text: str) -> tuple[Dimension, str] | None:
    """The (dimension, wording) of a text that is one statement a pattern reads whole, else None.

    "I'm vegetarian" → (preferences, "Is vegetarian"), "我最近压力很大" → (state, "最近压力很大");
    "I moved to Porto last year" is None: the pattern would drop "last year", so the person's words stand.
    """
    found = list(_found(text))
    if len({(dimension, wording) for dimension, wording, _ in found}) != 1:
        return None
    dimension, wording, whole = found[0]
    return (dimension, wording) if whole else None


# Every English rule needs the word "I" or "my", every Chinese one the character 我: a sentence with
# neither (most of a note) is passed over by one search instead of fifty. A rule that needed neither
# would be tried on every sentence (see `_anchored`).
_EN_ANCHOR = re.compile(r"\b(?:i|my)\b", re.IGNORECASE)
_CJK_IN_RULE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_CLASS = re.compile(r"\[(?:\\.|[^\]\\])*\]")  # a character class: a 我 in one is not a 我 the rule needs


@functools.cache
def _anchored() -> tuple[list[Rule], list[Rule], list[Rule]]:
    """The rules (English, Chinese, any sentence): built on first use, after RULES += ZH_RULES."""
    english = [rule for rule in RULES if not _CJK_IN_RULE.search(rule[1].pattern)]
    chinese = [rule for rule in RULES if rule not in english and "我" in _CLASS.sub("", rule[1].pattern)]
    return english, chinese, [rule for rule in RULES if rule not in english and rule not in chinese]


# What the anchors are made of: cleaning a sentence only takes characters out, so one without
# an i, an m or a 我 holds no anchor once cleaned either.
_ANCHOR_LETTERS = re.compile(r"[im我]", re.IGNORECASE)


def rules_for(sentence: str) -> list[Rule]:
    """The rules that can match `sentence`, in RULES' order."""
    english, chinese, others = _anchored()
    if not others and "我" not in sentence and not _EN_ANCHOR.search(sentence):
        return []
    wanted = {id(rule) for rule in others}
    wanted |= {id(rule) for rule in english} if _EN_ANCHOR.search(sentence) else set()
    wanted |= {id(rule) for rule in chinese} if "我" in sentence else set()
    return [rule for rule in RULES if id(rule) in wanted]


def _found(text: str) -> Iterator[tuple[Dimension, str, bool]]:
    """Each (dimension, wording) found, and whether its match is the whole of a one-sentence text."""
    sentences, total, quotations = own_sentences(text)
    anchored_only = not _anchored()[2]
    for sentence in sentences:
        if anchored_only and not _ANCHOR_LETTERS.search(sentence):
            continue  # most of a note: no rule can match it, even once cleaned
        # Escape codes and control characters out first: "\x1b[1mLisbon" must read as "Lisbon".
        sentence = clean_text(sentence).lstrip("-*• ").strip()
        rules = rules_for(sentence)
        if not rules or sentence.endswith(("?", "？")) or _ZH_QUESTION.search(sentence):
            continue  # a question asks; it states nothing
        for dimension, pattern, word in rules:
            for match in pattern.finditer(sentence):
                if _SUPPOSED.search(sentence[: match.start()]):
                    continue
                if dimension is Dimension.goals and _ABOUT_THE_TEXT.search(sentence):
                    continue
                wording = _cap(_ZH_MY.sub("自己的", _MY.sub("their", word(match))))
                if not _FIRST_PERSON.search(wording) and _is_item(wording := quotations.restore(wording)):
                    whole = (total == 1 and match.start() == 0
                             and not sentence[match.end():].strip(_CLOSING))
                    yield dimension, wording, whole


def _is_item(wording: str) -> bool:
    """Whether a wording reads as a memory item on its own: one line's length, meaning something without its note."""
    # Well under MAX_ITEM_TEXT: a longer "statement" is a paragraph the patterns misread.
    # Chinese packs a word in a character or two: "很累" is an item.
    shortest = 2 if _CJK.search(wording) else 3
    return shortest <= len(wording) <= min(120, MAX_ITEM_TEXT) and stands_alone(wording)


# What may follow a statement read whole: its closing punctuation.
_CLOSING = " .!。！…~～"
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


# Likes and dislikes, read back from an item's wording, to find the one a new wording reverses
# ("Dislikes cold brew" reverses "Loves cold brew"). Only wordings whose stance is beyond doubt count:
# "Prefers X" or "Favourite X: Y" state no stance against anything.
_EN_STANCES: list[tuple[re.Pattern[str], int, bool]] = [  # (wording, sign, strong)
    (re.compile(r"^(?:really |truly )?(?:loves|adores)\s+(?P<thing>.+)$", re.I), 1, True),
    (re.compile(r"^(?:really |truly )?(?:likes|enjoys)\s+(?P<thing>.+)$", re.I), 1, False),
    # No longer loving something says nothing against still liking it: it reverses only "Loves".
    (re.compile(r"^(?:no longer (?:really )?(?:loves|adores)|(?:has )?stopped loving)\s+(?P<thing>.+)$", re.I), -1, True),
    (re.compile(r"^(?:really )?(?:dislikes|hates|detests|can(?:'|’|no)t stand|does(?: not|n't|n’t) (?:like|enjoy)|"
                r"no longer (?:really )?(?:likes|enjoys)|(?:has )?stopped (?:liking|enjoying))\s+(?P<thing>.+)$", re.I),
     -1, False),
]
# Chinese: 喜欢喝茶 / 不喜欢喝茶 / 讨厌喝茶. 最喜欢的… is a favourite, 更喜欢 a preference over something: neither.
_ZH_STANCE_DEGREE = r"(?:真的|其实|也|还|一直|都|很|非常|特别|超级|超|挺|蛮|好|已经)*"
_ZH_STANCES: list[tuple[re.Pattern[str], int, bool]] = [
    (re.compile(rf"^{_ZH_STANCE_DEGREE}(?:讨厌|不再喜欢|不喜欢|不再爱|不爱|受不了|厌恶)(?P<thing>.+)$"), -1, False),
    (re.compile(rf"^{_ZH_STANCE_DEGREE}(?:最爱|喜欢|热爱|享受|迷上了?|爱)(?![的人好])(?P<thing>.+)$"), 1, False),
]
# What says when, not what: "cold brew anymore" and "cold brew" are the same thing.
_WHEN = re.compile(r"(?:\s+(?:any ?more|now|these days|nowadays|lately))+$|(?:了|啦|了啊|了呢)$", re.I)


class Stance(NamedTuple):
    """A liking read from a wording: for or against (`sign`), love-strong or not, and the thing liked."""

    sign: int
    strong: bool
    thing: str

    def reverses(self, other: Stance) -> bool:
        """Whether this stance and `other` cannot both hold: opposite, about the same thing."""
        if self.thing != other.thing or self.sign == other.sign:
            return False
        against, liking = (self, other) if self.sign < 0 else (other, self)
        return not against.strong or liking.strong


def stance(wording: str) -> Stance | None:
    """The liking a preference's wording states, or None when it states none beyond doubt."""
    text = " ".join(wording.split())
    for pattern, sign, strong in _ZH_STANCES if _CJK.match(text) else _EN_STANCES:
        m = pattern.match(text)
        if m:
            thing = normalise(_WHEN.sub("", normalise(m["thing"])))
            return Stance(sign, strong, thing) if thing else None
    return None


class Likings:
    """The likes and dislikes among existing items, by the thing liked: which one a new wording reverses."""

    def __init__(self, texts: Iterable[str]):
        self.by_thing: dict[str, list[tuple[Stance, str]]] = {}
        for text in texts:
            found = stance(text)
            if found is not None:
                self.by_thing.setdefault(found.thing, []).append((found, text))

    def reversed_by(self, wording: str) -> str | None:
        """The first item `wording` reverses ("Dislikes cold brew" → "Loves cold brew"), or None."""
        new = stance(wording)
        if new is None:
            return None
        return next((text for old, text in self.by_thing.get(new.thing, []) if new.reverses(old)), None)
