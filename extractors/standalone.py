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
  verb ("Called — brother", from "Called my brother");
- **it is not what it looks like**: a Chinese 是… item says what the person is, so what follows 是 must be a
  noun phrase that can describe a person (是一名软件工程师, 是上海人, 是素食者, 是90后, 是杨希杰, 是做设计的),
  not the 是…的 emphasis or judgement (是直接拖到OneDrive备份的 "I just dragged them", 是无法接受的), a verb
  phrase (是创造了很多项目), a number or a level (是14本满防) or what the person is to "you" (`NOT_WHO`); a
  觉得/认为 must make a claim with a subject of its own: 觉得是两个实际的问题 (what is?) and
  觉得比较有意思的几篇论文 (a noun phrase alone) make none (`NO_CLAIM`); and a goal that is what a text sets
  out to do for its reader ("Wants to introduce some basic concepts of Spark", "Wants to show you how",
  "Wants to thank your parents", 想和大家分享, 想告诉你) is the text's, not the person's (`TO_A_READER`).

A quotation in the text is a title or a term, read as one name whatever its words ("Loves “It”").
"""

from __future__ import annotations

import re

PRONOUN_ONLY = "only a pronoun or 'this …' for what it is about: it means nothing on its own"
CUT_SHORT = "cut short: it ends where nothing can end"
NOT_WHO = "not what the person is: no noun phrase for a person after 是"
NO_CLAIM = "no claim: 觉得/认为 with no subject of its own, or only a noun phrase"
TO_A_READER = "written to a reader: what a text sets out to do, not a goal of the person's"

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_LABEL = re.compile(r"^(?P<label>[^—–]+?)\s+[—–]\s+\S")
_TRAILING = " .!?。！？…~～"
_QUOTATION = re.compile(r"\"[^\"]*\"|“[^”]*”|«[^»]*»|‘[^’]*’(?!\w)|「[^」]*」|『[^』]*』|＂[^＂]*＂")

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

# Chinese. 它 always points back into the note; a demonstrative does unless it is a time word or an adverb.
_ZH_IT = re.compile("它")
_ZH_DEMONSTRATIVE = re.compile(
    r"[这那](?!么|样.|时|会儿|阵子|段时间|段日子|几天|两天|些天|些年|几年|周|个星期|星期|礼拜|个礼拜|个月|个周末|周末|"
    r"辈子|次|一年|学期|天|年|刻)")
_ZH_PERSON_LAST = re.compile(r"(?:(?<![吉其])他|她|(?<!迷)你|您)们?[了的吧呢啊呀]?$")  # not 吉他 (guitar), 迷你 (mini)
_ZH_CUT = re.compile(
    r"(?:(?<![理思感幻联回设猜构冥梦妄遐畅])想|想要|(?:想|要|会|能|来)说|(?<![恋可亲心宠友博关疼溺])爱|喜欢|"
    r"(?<![很真好太])讨厌|觉得|认为|相信|(?<![有没失满])希望|打算|(?<![好有])准备|(?<![有按的])计划|叫|住在|来自|"
    r"(?<![自实现存所健])在|(?<![总但可就还于要不倒只正算真老凡像却而都也])是|是[指说說]|把|被|让|给|从|与|跟|"
    r"(?<![温平暖柔随缓祥谐饱总共])和|因为|所以|但是|可是|而且|或者|如果|还是|为了|[成作以认称变改]为|(?:升级|转|换)[为成]|关于|对于|"
    r"很|非常|特别|(?<!太)太|最|(?:想|要|打算|准备|计划|希望)去)了?$")


# Common surnames (and 小/老/阿, as in 小红, 老王, 阿强): where a Chinese name starts, with no capital to show it.
ZH_SURNAME = (
    r"(?:欧阳|司马|上官|诸葛|东方|皇甫|令狐|慕容|[王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾"
    r"肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺"
    r"顾毛郝龚邵万钱严覃武戴莫孔向汤小老阿])"
)
# 是… : what the person is. The phrase after 是 is a noun phrase whose head, its last word, names a kind of
# person: a role, an origin, a trait (工程师, 上海人, 素食者, 学生, 夜猫子, 妈妈, 用户, 经理, 90后, INTJ).
_ZH_PERSON_HEAD = re.compile(
    r"(?:[者人员員师師家生士手工匠族迷控粉党黨派子女男妈媽爸母父姐妹哥弟儿兒娘婆叔姨孙孫徒客主友民户戶农農娃宝寶"
    r"佬汉漢兵将將霸渣货貨痴癡盲狗猫貓虫蟲咖座血症长長官侠俠丝絲]|经理|經理|总监|總監|主管|老板|老闆|总裁|總裁|董事|"
    r"会计|會計|秘书|秘書|编辑|編輯|翻译|翻譯|教授|前端|后端|後端|全栈|全棧|运营|運營|产品|產品|运维|運維|销售|銷售|"
    r"小白|菜鸟|菜鳥|菜鸡|菜雞|老鸟|老鳥|单身|單身|体质|體質|出身|背景|学历|學歷|社恐|社牛|海归|海歸|太太|女性|男性|"
    r"穆斯林|开发|開發|老大|(?:\d0|[05])[后後]|[A-Z]{2,5}(?:-[AT])?)$")
# …or a name, as a person says who they are (是杨希杰, 是电子系的杨希杰, 是 Rudy).
_ZH_FULL_NAME = re.compile(rf"{ZH_SURNAME}[\u3400-\u4dbf\u4e00-\u9fff]{{1,2}}|[A-Z][a-z]+(?: [A-Z][a-z]+)?")
# …or 是 + a trade + 的, "one who does it": 是做设计的, 是学医的, 是吃素的.
_ZH_WHO_DOES = re.compile(
    r"^(?:[做搞学學干幹教卖賣写寫吃修跑画畫唱演]|[开開](?!玩笑))[^了过過着著到完好错錯掉成出得把被用在从從给給让讓跟和对對就才都也还還很不没沒的]{1,8}的$")
# What never opens a noun phrase for a person: speech, thought, a modal, a cause, a negation, a question —
# 是 then explains (是指, 是说, 是因为…) or stresses what the person thinks or means to do (是想…, 是觉得…).
_ZH_NOT_A_NOUN = re.compile(
    r"^(?:[说說指想要能没沒否谁誰不怎]|[会會](?!员|員|计|計)|因为|因為|为了|為了|真的|可以|觉得|覺得|认为|認為|希望|打算|"
    r"准备|準備|如何|什么|什麼|无法|無法|可能|应该|應該|如果)")
# What opens a verb phrase: a verb, a preposition, an adverb of manner or time. 是 then stresses how or when
# the person did something (是直接拖到…备份的, 是从…开始的), unless the phrase is a clause before 的 and a
# person (是从小在农村长大的人).
_ZH_VERB_OPENING = re.compile(
    r"^(?:[从從被把跟和与與对對给給让讓刚剛还還也就都才第来來去听聽只靠按照由为為]|用(?!户|戶)|在(?!读|讀|校|职|職)|"
    r"先(?!生)|当时|當時|直接|已经|已經|故意|特意|专门|專門|通过|通過|根据|根據|一直|从来|從來|经常|經常|总是|總是|"
    r"偶尔|偶爾|一边|一邊|今天|昨天|明天|去年|今年|明年|以前|之前|后来|後來|现在|現在|自己)")
# What the person is to "you" (是你的主人) is relative to someone only the note names.
_ZH_YOU = re.compile(r"(?<!迷)你|您")
# A verb's aspect (了, 过, 着) marks a verb phrase, not a noun: 是创造了很多项目. Not in 了解, 过敏, 著名, 执着…
_ZH_ASPECT = re.compile(r"了(?!解|不起)|(?<![难難经經])[过過](?!敏|来人|來人|程|度)|(?<![执執穿衣])[着著](?!名|作)")
# 觉得/认为 + what it claims. With no subject of its own (觉得是…), or only "…的 + a noun" with nothing said
# of it (觉得比较有意思的几篇论文), it is a fragment whose claim is in its note.
_ZH_THINKS = re.compile(
    r"^(?:一直|始终|始終|真的|也|还|還)?(?P<verb>觉得|覺得|认为|認為|相信|坚信|堅信|深信)(?P<claim>.+)$")
_ZH_NO_SUBJECT = re.compile(r"^(?:也|还|還|都|就|应该|應該|可能|大概|其实|其實)?是(?!时候|時候)")
_ZH_NOUN_ALONE = re.compile(r"^[^是]+的(?P<noun>[^的]+)$")
# What says something of a noun: a verb, a copula, a degree, a negation, a modal or a comparison.
_ZH_PREDICATE = re.compile(
    r"[是有没沒无無很更最太真挺蛮蠻不会會能要该該可比越了过過都也就才还還在让讓使给給得算像需值等靠变變成好多少够夠对對错錯]")
# A phrase opened by 跟/和/从/对… ("with", "from", "to") needs a verb after it: closed by a locative alone
# (想跟老照片中, 从网上), it was cut. 想在家里 too: 在 right after 想 opens a place the verb should follow.
_ZH_COVERB_CUT = re.compile(
    r"(?:[跟和与與同从從对對向替][^在到去来來住回进進待留放搬入至于於]{2,12}?"
    r"|(?:想|要|打算|准备|準備|计划|計劃|希望)在[^在到去来來住回进進待留放搬入至于於]{1,12}?)[中里裡上内內下]$")
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
_ZH_GOAL = r"(?:想|(?<![重需主只])要|打算|准备|準備|希望)"
_ZH_READERS = r"(?:你们|你們|大家|各位|读者|讀者)"
_ZH_TO_A_READER = re.compile(
    rf"{_ZH_GOAL}(?:简单|簡單|先|再|来|來)?地?(?:能|可以)?"
    rf"(?:[和跟给給与與向]{_ZH_READERS}|(?:告诉|告訴|教|帮|幫|向|给|給)(?:你|您)|分享|介绍|介紹|"
    r"(?:讲讲|講講|聊聊|谈谈|談談|说说|說說)(?!天|恋爱|戀愛)|(?:记录|記錄|总结|總結|讲|講)一下|"
    r"讨论|討論|探讨|探討|谈一谈|談一談|讲一讲|講一講|多说一点|多說一點)"
    rf"|^{_ZH_GOAL}.*{_ZH_READERS}")


def why_not_alone(text: str) -> str | None:
    """Why the text means nothing without its note (`PRONOUN_ONLY`, `CUT_SHORT`), or None when it stands."""
    text = " ".join(text.split()).rstrip(_TRAILING)
    if not text:
        return CUT_SHORT
    if _CJK.search(_QUOTATION.sub("", text)):
        return _why_not_alone_zh(_QUOTATION.sub("“”", text))
    text = _QUOTATION.sub(" Quoted ", text)  # a title is a name, whatever its words
    label = _LABEL.match(text)
    if label and label["label"].casefold() in _NOT_NAMES:
        return CUT_SHORT
    words = [w.casefold().replace("’", "'") for w in _WORD.findall(text)]
    if not words:
        return CUT_SHORT
    capitalised = [w[:1].isupper() for w in _WORD.findall(text)]
    if _pronoun_object(words, capitalised):
        return PRONOUN_ONLY
    if _cut_short(words):
        return CUT_SHORT
    text = text.replace("’", "'")
    return TO_A_READER if _TO_A_READER.match(text) or _EN_ADDRESSED.match(text) else None


def stands_alone(text: str) -> bool:
    """Whether the text makes sense without the note it came from."""
    return why_not_alone(text) is None


def _why_not_alone_zh(text: str) -> str | None:
    if _ZH_IT.search(text) or _ZH_DEMONSTRATIVE.search(text) or _ZH_PERSON_LAST.search(text):
        return PRONOUN_ONLY
    if _ZH_CUT.search(text) or _ZH_COVERB_CUT.search(text):
        return CUT_SHORT
    if text.startswith("是") and not describes_a_person(text[1:]):
        return NOT_WHO
    thinks = _ZH_THINKS.match(text)
    if thinks and _no_claim(thinks["verb"], thinks["claim"].strip()):
        return NO_CLAIM
    return TO_A_READER if _ZH_TO_A_READER.search(text) else None


def describes_a_person(phrase: str) -> bool:
    """Whether a Chinese phrase after 是 is a noun phrase that can describe a person ("一名软件工程师", "上海人").

    Its head (its last word) names a kind of person or is a name (杨希杰), or it is a trade + 的 (做设计的,
    吃素的); it opens with no word of speech, thought or cause (是说, 是觉得, 是因为), nor with a verb or an
    adverb unless that opens a clause before 的 (是在农村长大的人), and its head holds no verb's aspect
    (了, 过, 着): a clause before 的 may.
    """
    phrase = " ".join(phrase.split()).rstrip(_TRAILING)
    if not phrase or _ZH_NOT_A_NOUN.match(phrase) or _ZH_YOU.search(phrase):
        return False
    if _ZH_WHO_DOES.match(phrase):
        return True
    clause, of, head = phrase.rpartition("的")
    head = head.strip()
    if _ZH_VERB_OPENING.match(phrase) and not (of and clause.strip()):
        return False
    if _ZH_FULL_NAME.fullmatch(head):
        return True
    return bool(head) and not _ZH_ASPECT.search(head) and bool(_ZH_PERSON_HEAD.search(phrase))


def _no_claim(verb: str, claim: str) -> bool:
    """Whether what follows 觉得/认为/相信 claims nothing of its own: 是… with no subject, or …的 + a noun alone.

    相信 may take a noun alone: 相信努力的力量 believes in the power of effort.
    """
    if _ZH_NO_SUBJECT.match(claim):
        return True
    if verb in {"相信", "坚信", "堅信", "深信"}:
        return False
    alone = _ZH_NOUN_ALONE.match(claim)
    return alone is not None and not _ZH_PREDICATE.search(alone["noun"])


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
    if word in _DEMONSTRATIVES:
        return after not in _RELATIVE
    if word in _QUANTIFIERS or word in _PLACES or word == "her":
        return after is None or after in _ADJUNCTS or after in _DEFINING
    if word == "that":
        if after is None:
            return True
        opens_clause = (i > 0 and words[i - 1] in _CLAUSE_VERBS) or after in _SUBJECTS or capitalised[i + 1]
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
    if last in _ENDLESS:
        return True
    # After a determiner or a preposition (but "to"), close or with one word between, it is a noun: "a beach
    # visit", "the feeling", "of family love"; "to visit" still wants its object.
    if last in _NEEDS_OBJECT and before not in _CLAUSE_SUBJECTS and not _NOUN_BEFORE & set(words[-3:-1]):
        return True
    return last in _BARE_ADJECTIVES and (before in _PREPOSITIONS or before in _LIKING
                                         or before in {"the", "a", "an", "and", "or"})
