"""Words that mean one thing across English and Chinese and across other words (docs/spec.md §9.2). Pure data.

A memory is kept in the words its writer chose, and asked in the asker's: "Lives in Lisbon" answers "我住在哪里？",
"Vegetarian since 2019" answers "do I eat meat?". The bundled model bridges some of that; a small 4-bit model does
it poorly for short questions, and a server may not be there at all. So recall also indexes, beside a text's words,
the concepts below that its words name: a shared concept is a shared term (decay/recall/recall.py's `analyse`).

Only the commonest topics of a personal profile, and only words that say that one thing (synonyms and
translations, never a topic's neighbours: "football" is not "badminton", "cat" is not "dog"), so that a question the
memory cannot answer stays unanswered. English words are matched by their stems, Chinese words as written.
"""

from __future__ import annotations

import functools
import re

from ..words import stem

# Each concept: its English words (stemmed when read), then its Chinese words.
CONCEPTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "live": (("live", "lives", "living", "reside", "resides", "resident"), ("住", "居住")),
    "grow-up": (("grew", "raised", "hometown", "childhood"), ("长大", "家乡", "老家", "故乡")),
    "age": (("born", "age", "old", "birthday"), ("出生", "年龄", "多大", "岁", "生日")),
    "name": (("name", "named", "called"), ("名字", "叫", "姓名")),
    "job": (("job", "work", "works", "employed", "employer", "profession", "occupation"), ("工作", "职业", "上班")),
    "study": (("school", "study", "studies", "studied", "student", "class", "classes", "course", "university",
               "college"), ("上学", "学校", "大学", "读书", "上课", "课程", "学习")),
    "language": (("speak", "speaks", "language", "languages", "fluent", "tongue"), ("语言", "会说", "母语", "讲")),
    "partner": (("partner", "boyfriend", "girlfriend", "husband", "wife", "spouse", "fiance", "fiancee"),
                ("伴侣", "男朋友", "女朋友", "老公", "老婆", "丈夫", "妻子", "对象")),
    "brother": (("brother",), ("弟弟", "哥哥", "兄弟")),
    "sister": (("sister",), ("姐姐", "妹妹")),
    "mother": (("mother", "mum", "mom", "mama"), ("妈", "母亲")),
    "father": (("father", "dad", "papa"), ("爸", "父亲")),
    "parents": (("parents",), ("父母", "爸妈")),
    "grandmother": (("grandmother", "grandma", "granny"), ("外婆", "奶奶", "姥姥")),
    "grandfather": (("grandfather", "grandpa"), ("外公", "爷爷", "姥爷")),
    "cousin": (("cousin",), ("表哥", "表姐", "表弟", "表妹", "堂哥", "堂姐", "堂弟", "堂妹")),
    "friend": (("friend",), ("朋友",)),
    "colleague": (("colleague", "coworker"), ("同事",)),
    "boss": (("boss", "manager"), ("老板", "领导", "上司")),
    "doctor": (("doctor", "gp", "physician"), ("医生", "大夫")),
    "teacher": (("teacher", "tutor"), ("老师",)),
    "landlord": (("landlord", "landlady"), ("房东",)),
    "sleep": (("sleep", "sleeping", "slept", "insomnia"), ("睡", "失眠")),
    "stress": (("stress", "stressed", "pressure"), ("压力", "紧张")),
    "tired": (("tired", "exhausted"), ("累", "疲惫")),
    "homesick": (("homesick",), ("想家",)),
    "meat": (("meat", "vegetarian", "vegan"), ("肉", "素食", "吃素")),
    "allergy": (("allergy", "allergies", "allergic"), ("过敏",)),
    "tea": (("tea",), ("茶",)),
    "coffee": (("coffee", "espresso", "latte"), ("咖啡",)),
    "knee": (("knee",), ("膝盖",)),
    "editor": (("editor", "vim", "neovim", "emacs", "vscode"), ("编辑器",)),
    "career": (("career", "promotion", "promoted"), ("职业发展", "晋升", "升职")),
    "database": (("database", "postgres", "postgresql", "mysql", "sqlite"), ("数据库",)),
    "film": (("film", "movie", "cinema"), ("电影",)),
    "book": (("book", "novel"), ("书", "小说")),
    "music": (("music", "song"), ("音乐", "歌")),
    "travel": (("trip", "travel", "travelling", "traveling", "holiday", "vacation"), ("旅行", "旅游", "度假")),
    "move": (("move", "moving", "relocate"), ("搬",)),
    "exam": (("exam", "examination"), ("考试",)),
    "wedding": (("wedding", "married", "marry"), ("婚礼", "结婚")),
    "dog": (("dog", "puppy"), ("狗",)),
    "cat": (("cat", "kitten"), ("猫",)),
    "cook": (("cook", "cooking"), ("做饭", "下厨", "烹饪")),
}

PREFIX = "~"  # a concept's term: no word's term begins with it (a word is letters and digits)


@functools.cache
def _by_stem() -> dict[str, tuple[str, ...]]:
    found: dict[str, list[str]] = {}
    for concept, (english, _) in CONCEPTS.items():
        for word in english:
            found.setdefault(stem(word), []).append(PREFIX + concept)
    return {key: tuple(dict.fromkeys(value)) for key, value in found.items()}


@functools.cache
def _chinese() -> tuple[re.Pattern[str], dict[str, str]]:
    of = {word: PREFIX + concept for concept, (_, chinese) in CONCEPTS.items() for word in chinese}
    return re.compile("|".join(map(re.escape, sorted(of, key=len, reverse=True)))), of


def of_term(term: str) -> tuple[str, ...]:
    """The concepts an English word's stem names."""
    return _by_stem().get(term, ())


def of_run(run: str) -> list[str]:
    """The concepts the Chinese words of a CJK run name (the longest word at each place)."""
    pattern, of = _chinese()
    return [of[m[0]] for m in pattern.finditer(run)]
