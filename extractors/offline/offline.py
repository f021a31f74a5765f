"""The offline extractor: first-person patterns and a keyword classifier, no model."""

from __future__ import annotations

import re

from hylo_memory.decay import Dimension, Evidence, MemoryFile
from hylo_memory.domain.dimensions import clean_text
from hylo_memory.domain.items import MAX_ITEM_TEXT
from hylo_memory.domain.sources import Source

from ..base import AuthorProfile, Candidate, Cluster, Decision, Extraction, Progress
from ..synthesis import cluster_evidence
from .patterns import RELATIONS, ZH_RELATIONS, Likings, statements, whole_statement
from .stated import third_person, time_bound

# Keyword cues for `remember` without a dimension, when no first-person pattern reads the fact, strongest
# first. Each dimension's English cue is followed by its Chinese one (no \b: Chinese has no word breaks).
_FAMILY = r"husband|wife|spouse|partner|fianc[ée]e?|kids?|children|child|sons?|daughters?|twins|baby"
_PETS = (r"dogs?|pupp(?:y|ies)|pups?|cats?|kittens?|pets?|horses?|hamsters?|parrots?|rabbits?|bunn(?:y|ies)|turtles?|"
         r"snakes?|guinea pigs?|fish")
_ZH_PETS = r"猫咪?|小猫|狗狗?|小狗|宠物|兔子|鹦鹉|仓鼠"
_ROLE = (r"(?:[a-z-]+ ){0,2}(?:[a-z-]+(?:er|or|ist|ian|ant|ent|eon|ef|ach|urse|grapher|smith)|artist|chef|nurse|"
         r"coach|doctor|lawyer|student|teacher|mother|mom|mum|father|dad|parent|veteran|woman|man|person)")
_CUES: list[tuple[Dimension, re.Pattern[str]]] = [
    (Dimension.state, re.compile(r"\b(feel|feeling|felt|tired|stressed|exhausted|anxious|today|tonight|"
                                 r"this week|right now|lately|mood|sick|overwhelmed)\b", re.I)),
    (Dimension.state, re.compile(r"最近|今天|今晚|这周|这几天|这阵子|心情|累|疲惫|压力|焦虑|紧张|开心|高兴|难过|沮丧|"
                                 r"烦|兴奋|生病|感冒|不舒服")),
    # A person or a pet of theirs, named or told of: "Melanie's husband", "has a dog named Max", "my sister".
    (Dimension.people, re.compile(rf"(?:\b(?:my|his|her|their)|'s|’s) (?:(?:best|close|old|new|little|older|younger|"
                                  rf"oldest|youngest) )?(?:{'|'.join(map(re.escape, RELATIONS))}|{_PETS})\b"
                                  rf"(?! and \w+ (?:is|are)\b)", re.I)),
    (Dimension.people, re.compile(rf"\b(?:has|have|had|adopted|got) (?:a|an|two|three|\d+) (?:[a-z]+ )?(?:{_PETS})\b",
                                  re.I)),
    (Dimension.people, re.compile(rf"(?<!自)我(?!们)的?(?:{'|'.join(map(re.escape, ZH_RELATIONS))}|{_ZH_PETS})")),
    (Dimension.goals, re.compile(r"\b(want to|wants to|going to|plan to|plans to|planning|goal|working on|aim to|"
                                 r"aims to|hope to|hopes to|trying to|learn|learning|finish|launch|build|building|"
                                 r"training for|studying|preparing|looking for)\b", re.I)),
    (Dimension.goals, re.compile(r"想要|打算|计划|目标|希望|准备|正在|学会|在学|努力|争取|梦想|在找|找工作|求职")),
    (Dimension.beliefs, re.compile(r"\b(believe|believes|think that|thinks that|convinced|should|value|values|"
                                   r"matters?|principle)\b", re.I)),
    (Dimension.beliefs, re.compile(r"觉得|相信|认为|坚信|应该|价值观|原则")),
    (Dimension.identity, re.compile(r"\b(my name|call me|i am called|i'm called|live in|lives in|living in|"
                                    r"work as|works as|work at|works at|work for|works for|i'm from|i am from|"
                                    r"(?:is|was|are|were) from|grew up|born|moved (?:to|from|back)|speak|speaks|"
                                    r"years old|my job|married|divorced|widowed|native|work in|works in|"
                                    r"job|career|profession|owns|runs (?:a|an|his|her|their) |retired|"
                                    # the body's standing facts: an allergy is no taste
                                    r"allergic|allergy|intolerant|diabetic|coeliac|celiac|"
                                    r"i(?:'m|’m| am) \d{1,3}(?: years old)?\s*[.!]?$|"
                                    rf"(?:'ve|’ve|have|has) been an? {_ROLE}\b|"
                                    rf"(?:has|have|had) (?:a|an|one|two|three|four|five|\d+) (?:{_FAMILY})\b)", re.I)),
    (Dimension.identity, re.compile(r"我叫|名字|住在|来自|工作|上班|职业|出生|岁|结婚|母语|过敏|(?<!自)我(?!们)是|"
                                    r"有(?:一|两|三|四|五|几|\d+)个(?:孩子|小孩|儿子|女儿|娃)")),
    # "I'm Sam", "I am Sam Rivera", "I'm American": who they are; a diet or a taste a pattern read first.
    (Dimension.identity, re.compile(r"^\s*(?i:i(?:'m|’m| am))\s+(?:[A-Z][\w'’-]+)(?:\s+[A-Z][\w'’-]+){0,2}\s*[.!]?$")),
    # "I'm a nurse", "I am an architect": a role, unless it is a diet or a taste.
    (Dimension.identity, re.compile(r"\bi(?:'m|’m| am) an? (?!(?:vegetarian|vegan|pescatarian|fan|big fan|"
                                    r"morning person|night owl|huge)\b)[a-z-]+(?: [a-z-]+)?\s*[.!]?$", re.I)),
    # "Maria is a nurse", "Jon is a dancer who runs …", "John is a single dad": what someone is, told of them.
    (Dimension.identity, re.compile(rf"^\s*[A-Z][\w'’-]+(?: [A-Z][\w'’-]+)? (?:is|was) an? (?!(?:vegetarian|vegan|"
                                    rf"pescatarian|fan|big fan|huge fan|member)\b){_ROLE}\b")),
]


NO_MODEL_ASKED = "offline patterns, no model asked"  # said whether or not a model is configured: both are true


class OfflineExtractor:
    """Honest pattern matching over the author's own first-person sentences."""

    name = "offline"

    def extract(self, sources: list[Source], profile: AuthorProfile, existing: list[Candidate],
                progress: Progress | None = None) -> Extraction:
        # Offline extraction is instant: nothing is worth keeping before the run ends.
        likings = Likings(c.text for c in existing if c.dimension is Dimension.preferences)
        evidence = []
        for source in sources:
            allowed = source.dimensions
            for dimension, text in statements(source.text):
                if dimension in allowed:
                    # Only a reversed liking is certain enough to supersede: "Lives in Porto" may be a second home.
                    replaced = likings.reversed_by(text) if dimension is Dimension.preferences else None
                    evidence.append(Evidence(dimension=dimension, text=text, source=source.path, date=source.date,
                                             supersedes=replaced))
        return Extraction(evidence=evidence)

    def synthesise(self, clusters: list[Cluster], profile: AuthorProfile) -> Extraction:
        evidence = []
        for cluster in clusters:
            evidence += cluster_evidence(cluster, trait_wording(cluster))
        return Extraction(evidence=evidence)

    def classify(self, text: str, dimension: Dimension | None, pinned: bool | None, *,
                 memory: dict[Dimension, MemoryFile | None] | None = None) -> Decision:
        """Where a stated fact goes, read as the patterns read a note, else by keywords.

        A fact a pattern reads whole keeps the pattern's wording, as a note's would ("I'm vegetarian" →
        "Is vegetarian", "我是素食者" → "是素食者"): said in a note or told to `remember`, it is one item.
        Anything else keeps the person's words in the third person ("my sister Chloe …" → "Sister Chloe …").
        A fact tied to a time ("this fall", 最近) is not pinned, and is filed under goals or state rather
        than identity, preferences or beliefs. With `memory`, a reversed liking supersedes the old one.
        """
        stated = text
        how = []
        whole = whole_statement(text)
        when = time_bound(text)
        read_as = dimension
        if dimension is None:
            read = {d for d, _ in statements(text)}
            if whole or len(read) == 1:
                dimension = whole[0] if whole else read.pop()
                how.append(f"filed under {dimension.value} by a first-person pattern ({NO_MODEL_ASKED})")
            else:
                dimension = next((d for d, cue in _CUES if cue.search(text)), Dimension.preferences)
                how.append(f"filed under {dimension.value} by keywords ({NO_MODEL_ASKED})")
            read_as = dimension
            if when in ("near", "ahead") and dimension in _STANDING:  # a time just past keeps its file
                dimension = Dimension.goals if when == "ahead" else Dimension.state
                how.append(f"tied to a time, so under {dimension.value}")
        text = whole[1] if whole and whole[0] is read_as else third_person(text)
        if pinned is None:
            pinned = dimension.pinned_by_default and when is None
        return Decision(dimension=dimension, text=text, pinned=pinned, reason="; ".join(how),
                        supersedes=superseded_liking(stated, text, dimension, memory))


# What a fact tied to a time is not: it goes under goals (a time ahead) or state (now) instead.
_STANDING = (Dimension.identity, Dimension.preferences, Dimension.beliefs)


def superseded_liking(stated: str, text: str, dimension: Dimension,
                      memory: dict[Dimension, MemoryFile | None] | None) -> str | None:
    """The Active preference a stated fact reverses ("I stopped liking cold brew" → "Loves cold brew"), if certain.

    Read from the fact as kept and from what the patterns read in the statement; two different items
    reversed is not certain, and gives none.
    """
    current = (memory or {}).get(Dimension.preferences)
    if dimension is not Dimension.preferences or current is None:
        return None
    likings = Likings(item.text for item in current.active)
    readings = [text, *(wording for d, wording in statements(stated) if d is Dimension.preferences)]
    reversed_items = {found for wording in readings if (found := likings.reversed_by(wording)) is not None}
    return reversed_items.pop() if len(reversed_items) == 1 else None


def trait_wording(cluster: Cluster) -> str:
    """A trait from a cluster's strongest themes: "Keeps coming back to databases and consensus"."""
    if cluster.trait:
        return fit_item(cluster.trait)  # a theme keeps the wording it already has
    themes = [t.replace("-", " ").replace("_", " ") for t in cluster.tags[:3]]
    listed = themes[0] if len(themes) == 1 else ", ".join(themes[:-1]) + " and " + themes[-1]
    return fit_item(f"Keeps coming back to {listed}")


def fit_item(text: str) -> str:
    """The wording cut to one item's length at a word, marked "…": a tag may be any length."""
    text = clean_text(text)
    if len(text) <= MAX_ITEM_TEXT:
        return text
    cut = text[: MAX_ITEM_TEXT - 1]
    if " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,") + "…"
