"""Whether an item's text stands alone: an item must make sense without the note it came from.

One pure judgement, used by the offline patterns and on the LLM's replies alike. A text does not
stand alone when

- **its object is only a pronoun or a demonstrative.** The object is what follows the verb chain
  ("Loves", "Wants to finish", "Believes in", "Is tired of"): "Loves it", "Likes them", "Loves both",
  "Loves that", "Loves this book", "Prefers it to Clean Code", "Wants to finish it before Christmas";
  in Chinese 它 anywhere, a demonstrative (这, 那, 这个, 那个, 这些, 那些, 这本…, 这里) outside a time word
  (这周, 这几天, 这段时间…) or a person's pronoun ending the text (喜欢它, 喜欢这个, 爱那些, 想读完这本书,
  爱他). What follows the pronoun does not help when it only places or compares it ("to Clean Code",
  "before Christmas"); it does when it is a clause saying what the pronoun stands for: "Loves it when
  it rains" and "Hates it when meetings run late" stay, as does "that" opening a clause ("Believes
  that small teams win", "Loves that she calls on Sundays") and "those who …". A pronoun after the
  object is named ("Moved to Porto with them") leaves the fact standing, and is left alone;
- **it is cut short**: it ends where nothing can end — on a preposition, an article, a conjunction,
  a possessive or an auxiliary ("Wants to move to Porto and", "Loves the", "Is working on"), on a
  verb that needs what follows ("Wants to say", "Feels", 想说, 觉得, 是指), on a bare adjective where its
  noun should follow ("Believes in small", "Loves small"), on a locative closing a phrase that 跟/和/从/对
  opened with no verb after it (想跟老照片中, 想在家里); or it is a "Name — relationship" whose name is a
  verb ("Called — brother", from "Called my brother"). A preposition closing a clause about a noun named
  before it ends a text ("a mentor to talk to", "the worst failing a person can fall into"); an adverb
  left after "to" does not ("Hopes to finally"), nor a noun that stands for what the note says next
  ("Loves the way"), nor a reason alone ("Because work is busy", 因为工作的原因). 真爱 and 多想 end a text;
- **it judges nothing named** (`EMPTY_OPINION`): 觉得还不错, 感觉一般, 认为很有道理; "Thinks it's fine" and
  "Thinks so too" are pronouns. An opinion with no subject that makes a claim stays (觉得远程办公效率更高,
  觉得余华的书还行，但配不上他的名气: two clauses say something of what they name), as does one of the
  person's own state (感觉很累); 他/她 with no one named before it is a pronoun (经常跟他一起打球);
- **it is not what it looks like**: a Chinese 是… item says what the person is, so what follows 是 must be a
  noun phrase that can describe a person (是一名软件工程师, 是上海人, 是素食者, 是90后, 是杨希杰, 是做设计的),
  not the 是…的 emphasis or judgement (是直接拖到OneDrive备份的 "I just dragged them", 是无法接受的), a verb
  phrase (是创造了很多项目), a number or a level (是14本满防) or what the person is to "you" (`NOT_WHO`); a
  觉得/认为 must make a claim with a subject of its own: 觉得是两个实际的问题 (what is?) and
  觉得比较有意思的几篇论文 (a noun phrase alone) make none (`NO_CLAIM`); and a goal that is what a text sets
  out to do for its reader ("Wants to introduce some basic concepts of Spark", "Wants to show you how",
  "Wants to thank your parents", 想和大家分享, 想告诉你) is the text's, not the person's (`TO_A_READER`).

A quotation in the text (in quotes, 《》, or straight single quotes around words) is a title or a term, read as
one name whatever its words ("Loves “It”", 喜欢读《明朝那些事儿》); so is a demonstrative opening words in Title
Case ("Rereads This Is Water"). "That" after an indefinite pronoun is a relative ("Has something that …").
"""

from __future__ import annotations

import re

from .standalone_zh import TRAILING, zh_problem

PRONOUN_ONLY = "only a pronoun or 'this …' for what it is about: it means nothing on its own"
CUT_SHORT = "cut short: it ends where nothing can end"
NOT_WHO = "not what the person is: no noun phrase for a person after 是"
NO_CLAIM = "no claim: 觉得/认为 with no subject of its own, or only a noun phrase"
TO_A_READER = "written to a reader: what a text sets out to do, not a goal of the person's"
EMPTY_OPINION = "an opinion of nothing named: what it judges is only in its note"
_ZH_REASONS = {"pronoun": PRONOUN_ONLY, "cut": CUT_SHORT, "not_who": NOT_WHO, "no_claim": NO_CLAIM,
               "empty": EMPTY_OPINION, "reader": TO_A_READER}

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_LABEL = re.compile(r"^(?P<label>[^—–]+?)\s+[—–]\s+\S")
# A straight single quote opens a title only before a word and after none: in "Rust's" it is an apostrophe.
_QUOTATION = re.compile(r"\"[^\"]*\"|“[^”]*”|«[^»]*»|‘[^’]*’(?!\w)|(?<![\w'])'[^'\n]+'(?!\w)|「[^」]*」|『[^』]*』"
                        r"|＂[^＂]*＂|《[^》]*》|〈[^〉]*〉")

# English: the words of a verb chain, and the words that make up an object or cannot end a text.
_ADVERBS = frozenset(
    "no longer really truly still also now not never always often usually much strongly firmly currently "
    "actually deeply genuinely absolutely totally quite rather just mostly even does do did doesn't don't "
    "didn't has have had would will can can't cannot won't".split())
_COPULAS = frozenset("is am are was were be been being feels feel feeling seems seem gets getting got "
                     "becomes become became stays stay looks".split())
_PREPOSITIONS = frozenset(
    "in on at to of for with from by about into onto than as like via per toward towards without between "
    "among through over under against after before during since until".split())
_PRONOUNS = frozenset("it them him".split())
_DEMONSTRATIVES = frozenset("this these those".split())
_QUANTIFIERS = frozenset("both either neither".split())
_PLACES = frozenset("here there".split())
# What may follow "it": a clause that says what "it" is ("Loves it when it rains").
_DEFINING = frozenset("when whenever if that how where".split())
_RELATIVE = frozenset("who whom whose which that".split())
# Pronouns "that" follows as a relative, never as a demonstrative: "Has something that deserves a documentary".
_INDEFINITES = frozenset("something anything everything nothing someone anyone everyone no one somebody anybody "
                         "everybody nobody one ones those people".split())
# A contraction is its two words: "Thinks it's fine" is "it" and "is"; "that's" is always the demonstrative.
_CONTRACTIONS = {"it's": ("it", "is"), "that's": ("this", "is")}
# What only places, times or weighs a pronoun: "before Christmas", "a lot", "equally".
_ADJUNCTS = _PREPOSITIONS | frozenset(
    "today tonight now anymore again too equally more most less lot a daily always often sometimes lately "
    "every all so very still".split())
# Words after which "that" opens a clause, not a demonstrative ("Believes that …", "Is convinced that …").
_CLAUSE_VERBS = frozenset(
    "believe believes believed think thinks thought know knows knew feel feels felt hope hopes hoped say says "
    "said agree agrees realise realises realised realize realizes realized suspect suspects wish wishes expect "
    "expects insist insists fear fears understand understands worry worries worried doubt doubts decided "
    "learned learnt noticed find finds found mean means convinced sure aware glad proud happy sad afraid "
    "certain confident".split())
# Words that start a clause after "that" ("Loves that she calls", "Thinks that the team …").
_SUBJECTS = frozenset(
    "i you he she it we they people everyone everybody nobody someone somebody there the a an my their his "
    "her our its your most all some many no every each being life work".split())
_ENDLESS = _PREPOSITIONS | frozenset(
    "the a an and or but nor because so if when whether although though while that my their his your our its "
    "some every each is are am was were be been being has have had will would can could should must do does "
    "did very really quite".split())
# Verbs that need what follows them: a text ending on one was cut.
_NEEDS_OBJECT = frozenset(
    "love loves like likes enjoy enjoys adore adores prefer prefers hate hates dislike dislikes want wants need "
    "needs plan plans hope hopes believe believes think thinks say says said tell tells told use uses called "
    "make makes get gets finish finishes buy buys try tries visit visits miss misses bring brings take takes "
    "give gives put puts mean means feel feels feeling become becomes wish wishes".split())
_DETERMINERS = frozenset("a an the my your his her its our their this that these those every each".split())
_NOUN_BEFORE = _DETERMINERS | (_PREPOSITIONS - {"to", "like"})  # what a verb of _NEEDS_OBJECT is a noun after
_CLAUSE_SUBJECTS = frozenset("i you he she it we they one people who what whatever".split())
# A final preposition is stranded, and the text whole, when a noun came before it and a clause about that noun
# opened after it: "a mentor to talk to", "a problem worth working on", "the worst failing a person can fall into".
_NOUN_OPENERS = _DETERMINERS - {"that"} | frozenset("what which whom some any something someone".split())
_CLAUSE_OPENERS = _DETERMINERS | _CLAUSE_SUBJECTS | frozenset(
    "to worth that which who whom where can could should would will must might".split())
_COORDINATORS = frozenset("and or but nor".split())
# Nouns that stand for what the note goes on to say: "Loves the way", "Likes the idea".
_SHELL_NOUNS = frozenset("way fact idea thing things part point kind sort reason notion".split())
# Adverbs a cut may leave after "to" or an auxiliary: "Hopes to finally", "Is actually".
_DANGLING = frozenset("finally eventually really truly still also now not never always often usually just even "
                      "actually deeply genuinely absolutely totally quite rather mostly currently".split())
_BEFORE_DANGLING = frozenset("to is am are was were be been will would can could should must has have had".split())
# A reason, a condition or a concession alone: the clause it leads to is in the note ("Because work is busy").
_CLAUSE_ALONE = re.compile(r"^(?:because|although|though|unless|whereas)\b[^,;:]*$", re.IGNORECASE)
_LIKING = frozenset("love loves like likes enjoy enjoys adore adores prefer prefers hate hates dislike dislikes "
                    "values value wants want".split())
# Adjectives that ask for their noun: "Believes in small" was "small, boring teams".
_BARE_ADJECTIVES = frozenset(
    "small big large little tiny huge good bad great new old simple boring quiet loud cheap expensive long "
    "short fast slow young modern early local strong weak hard soft easy fresh clean plain fancy".split())
# Verbs whose preposition is a particle, the phrase whole without an object: "Loves staying in", "Wants to move on".
_PARTICLE = {
    "in": "stay eat sleep mov log check settl fit join tun sink dig giv cav drop pitch lie lying",
    "on": "mov carry carri hold go went keep kept catch caught log switch turn tri try",
    "over": "start sleep slept tak took hand com came get got",
}
_PARTICLE_VERB = {particle: re.compile(rf"(?:{'|'.join(stems.split())})(?:e|es|ed|s|ing|[gtpn](?:ed|ing))?")
                  for particle, stems in _PARTICLE.items()}
# Verbs that open a note's sentence and look like a name in "X my brother": never a person's name.
_NOT_NAMES = frozenset(
    "called call calls texted text texts visited visit visits met meet meets saw see sees phoned phone rang "
    "emailed messaged told tell asked ask helped help thanked missed miss hugged joined invited love loves "
    "like likes with and for to from about at".split())

# Writing to a reader: what the text will do, not what its author wants (English item wordings, then Chinese).
_TO_A_READER = re.compile(
    r"^(?:really )?(?:wants|plans|hopes|would like|'d like|is going|goal:)(?: to)? (?:briefly |quickly |first |also )?"
    r"(?:introduce (?!their\b)|explain(?! to their\b)|share(?! (?:a|an) (?:flat|apartment|house|room|office|car)\b)|"
    r"show (?:you|readers|the reader|how|what|why)\b|walk (?:you|readers|the reader|through)\b|tell you\b|"
    r"go over\b|demonstrate|summari[sz]e|recap|outline|give (?:you|readers|an? (?:quick |brief |short )?"
    r"(?:overview|introduction|intro|summary|tour))\b|highlight|point out|touch on)", re.IGNORECASE)
# A goal that names "you" is said to a reader, or to someone only the note knows: "Wants to thank your parents".
_EN_ADDRESSED = re.compile(r"^(?:really )?(?:wants|plans|hopes|would like|'d like|goal:)\b.*\byou(?:rs?|rself)?\b",
                           re.IGNORECASE)

def why_not_alone(text: str) -> str | None:
    """Why the text means nothing without its note (`PRONOUN_ONLY`, `CUT_SHORT`), or None when it stands."""
    text = " ".join(text.split()).rstrip(TRAILING)
    if not text:
        return CUT_SHORT
    if _CJK.search(_QUOTATION.sub("", text)):
        return _ZH_REASONS.get(zh_problem(_QUOTATION.sub("“”", text)) or "")
    text = _QUOTATION.sub(" Quoted ", text)  # a title is a name, whatever its words
    label = _LABEL.match(text)
    if label and label["label"].casefold() in _NOT_NAMES:
        return CUT_SHORT
    words, capitalised = _words(text)
    if not words:
        return CUT_SHORT
    if _pronoun_object(words, capitalised):
        return PRONOUN_ONLY
    if _cut_short(words) or _CLAUSE_ALONE.match(text):
        return CUT_SHORT
    text = text.replace("’", "'")
    return TO_A_READER if _TO_A_READER.match(text) or _EN_ADDRESSED.match(text) else None


def stands_alone(text: str) -> bool:
    """Whether the text makes sense without the note it came from."""
    return why_not_alone(text) is None


def _words(text: str) -> tuple[list[str], list[bool]]:
    """The text's words, folded, its contractions as two words; and which were capitalised."""
    words: list[str] = []
    capitalised: list[bool] = []
    for word in _WORD.findall(text):
        folded = word.casefold().replace("’", "'")
        parts = _CONTRACTIONS.get(folded, (folded,))
        words += parts
        capitalised += [word[:1].isupper()] + [False] * (len(parts) - 1)
    return words, capitalised


def _object_start(words: list[str], capitalised: list[bool]) -> int:
    """Where the object starts: past adverbs, the verb, "to"-verbs, gerunds and a copula's adjective."""
    i = _skip_adverbs(words, 0)
    if i < len(words) and words[i] in _PRONOUNS | _DEMONSTRATIVES | {"that"}:
        return i  # "It is great", "That works": a subject only the note names
    verb = words[i] if i < len(words) else ""
    i += 1
    if verb in _COPULAS and i < len(words) and not _pronoun_like(words, i) and words[i] not in _PREPOSITIONS:
        i += 1  # "Is tired (of it)", "Feeling stressed (about it)"
    while True:
        i = _skip_adverbs(words, i)
        if i + 1 < len(words) and words[i] == "to" and _a_verb(words, capitalised, i + 1):
            i += 2  # "Wants to finish (it)"
        elif i < len(words) and words[i].endswith("ing") and len(words[i]) > 4:
            i += 1  # "Enjoys reading (it)"
        else:
            break
    if i + 1 < len(words) and words[i] in _PREPOSITIONS and _pronoun_like(words, i + 1):
        i += 1  # "Believes in it", "Is into it"
    return i


def _skip_adverbs(words: list[str], i: int) -> int:
    while i < len(words) and words[i] in _ADVERBS:
        i += 1
    return i


def _a_verb(words: list[str], capitalised: list[bool], i: int) -> bool:
    """Whether the word after "to" may be a verb ("Wants to finish"), not a place or a noun ("Moved to Porto")."""
    return not (capitalised[i] or _pronoun_like(words, i) or words[i] in _SUBJECTS or words[i] in _ENDLESS)


def _pronoun_like(words: list[str], i: int) -> bool:
    return words[i] in _PRONOUNS | _DEMONSTRATIVES | _QUANTIFIERS | _PLACES | {"that", "her"}


def _pronoun_object(words: list[str], capitalised: list[bool]) -> bool:
    """Whether the object is only a pronoun or a demonstrative (see the module's rule)."""
    i = _object_start(words, capitalised)
    if i >= len(words):
        return False
    word, after = words[i], words[i + 1] if i + 1 < len(words) else None
    if word in _PRONOUNS:
        return after not in _DEFINING and not _dummy_it(words, i)
    if word in _DEMONSTRATIVES | {"that"} and i > 0 and capitalised[i] and after is not None and capitalised[i + 1]:
        return False  # a title in Title Case: "Rereads This Is Water", "Is reading That Will Never Work"
    if word in _DEMONSTRATIVES:
        return after not in _RELATIVE
    if word == "so":
        return i > 0 and words[i - 1] in _CLAUSE_VERBS and after in _ADJUNCTS  # "Thinks so too" ("Thinks so" is cut)
    if word in _QUANTIFIERS or word in _PLACES or word == "her":
        return after is None or after in _ADJUNCTS or after in _DEFINING
    if word == "that":
        if after is None:
            return True
        opens_clause = ((i > 0 and words[i - 1] in _CLAUSE_VERBS | _INDEFINITES) or after in _SUBJECTS
                        or capitalised[i + 1])
        return not opens_clause
    return False


def _dummy_it(words: list[str], i: int) -> bool:
    """Whether "it" stands for the clause that follows: "Believes it is important to rest"."""
    return (words[i] == "it" and i + 1 < len(words) and words[i + 1] in {"is", "was", "will", "would", "seems"}
            and any(w in {"to", "that", "when", "if"} for w in words[i + 2:]))


def _cut_short(words: list[str]) -> bool:
    """Whether the text ends where nothing can end (see the module's rule)."""
    last = words[-1]
    if len(words) == 1:
        return last in _ENDLESS or last in _NEEDS_OBJECT
    before = words[-2]
    # "Believes in doing what you love": the verb's object is the "what" before its subject.
    particle = _PARTICLE_VERB.get(last)
    if particle is not None and particle.fullmatch(before):
        return False
    if last in _PREPOSITIONS and _stranded(words):
        return False
    if last in _ENDLESS or (before in {"the", "this", "that"} and last in _SHELL_NOUNS):
        return True
    kept = len(words)
    while kept > 1 and words[kept - 1] in _DANGLING:
        kept -= 1
    if kept < len(words) and words[kept - 1] in _BEFORE_DANGLING:
        return True
    # After a determiner or a preposition (but "to"), close or with one word between, it is a noun: "a beach
    # visit", "the feeling", "of family love"; "to visit" still wants its object.
    if last in _NEEDS_OBJECT and before not in _CLAUSE_SUBJECTS and not _NOUN_BEFORE & set(words[-3:-1]):
        return True
    return last in _BARE_ADJECTIVES and (before in _PREPOSITIONS or before in _LIKING
                                         or before in {"the", "a", "an", "and", "or"})


def _stranded(words: list[str]) -> bool:
    """Whether a final preposition closes a clause about a noun named before it (see `_NOUN_OPENERS`)."""
    if words[-2] in _DETERMINERS | _PREPOSITIONS | _COORDINATORS:
        return False
    noun = next((i for i in range(1, len(words) - 3) if words[i] in _NOUN_OPENERS), None)
    if noun is None:
        return False
    clause = next((i for i in range(noun + 2, len(words) - 2) if words[i] in _CLAUSE_OPENERS), None)
    return clause is not None and not _COORDINATORS & set(words[clause:])
