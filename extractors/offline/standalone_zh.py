"""The Chinese half of whether an item's text stands alone: the rules are said in standalone.py.

Pure regular expressions over characters (Chinese has no spaces to split words by): a pronoun or a
demonstrative, a text cut short, a 是… that says nothing a person is, a 觉得… that claims nothing, a
goal written to a reader.
"""

from __future__ import annotations

import re
from typing import Literal

Problem = Literal["pronoun", "cut", "not_who", "no_claim", "empty", "reader"]
TRAILING = " .!?。！？…~～"  # what may end a text and says nothing

# Chinese. 它 always points back into the note; a demonstrative does unless it is a time word or an adverb.
_ZH_IT = re.compile("它")
_ZH_DEMONSTRATIVE = re.compile(
    r"[这那](?!么|样.|时|会儿|阵子|段时间|段日子|几天|两天|些天|些年|几年|周|个星期|星期|礼拜|个礼拜|个月|个周末|周末|"
    r"辈子|次|一年|学期|天|年|刻|两年|两个月|几个月|半年|一周|一阵|些日子)")
_ZH_PERSON_LAST = re.compile(r"(?:(?<![吉其])他|她|(?<!迷)你|您)们?[了的吧呢啊呀]?$")  # not 吉他 (guitar), 迷你 (mini)
# 他/她 anywhere (not 其他, 吉他, 他人, 他乡) points back to someone the text must name before it: 余华 in
# 觉得余华的书还行，但配不上他的名气 — a name, a Latin capital, or a word for a person (妈妈, 同事, 作者).
_ZH_HE = re.compile(r"(?<![吉其])他(?![人乡鄉国國])|她")
_ZH_CUT = re.compile(
    r"(?:(?<![理思感幻联回设猜构冥梦妄遐畅多乱瞎细])想|想要|(?:想|要|会|能|来)说|(?<![恋可亲心宠友博关疼溺真挚])爱|喜欢|"
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
    r"穆斯林|开发|開發|老大|同事|领导|領導|上司|导师|導師|(?:\d0|[05])[后後]|[A-Z]{2,5}(?:-[AT])?)$")
# …or a name, as a person says who they are (是杨希杰, 是电子系的杨希杰, 是 Rudy).
_ZH_FULL_NAME = re.compile(rf"{ZH_SURNAME}[\u3400-\u4dbf\u4e00-\u9fff]{{1,2}}|[A-Z][a-z]+(?: [A-Z][a-z]+)?")
# Someone a later 他/她 may stand for: a name, a Latin capital, a word for a person.
_ZH_SOMEONE = re.compile(rf"{ZH_SURNAME}[\u3400-\u4dbf\u4e00-\u9fff]|[A-Z]|{_ZH_PERSON_HEAD.pattern.removesuffix('$')}")
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
    r"^(?:一直|始终|始終|真的|也|还|還)?(?P<verb>觉得|覺得|认为|認為|感觉|感覺|相信|坚信|堅信|深信)(?P<claim>.+)$")
_ZH_NO_SUBJECT = re.compile(r"^(?:也|还|還|都|就|应该|應該|可能|大概|其实|其實)?是(?!时候|時候)")
_ZH_NOUN_ALONE = re.compile(r"^[^是]+的(?P<noun>[^的]+)$")
_ZH_CLAUSES = re.compile(r"[，,；;]")  # a claim in two clauses says something of what it names: 还行，但配不上…
# A judgement alone, with nothing it judges: 觉得还不错, 觉得挺好的, 感觉一般, 认为很有道理 (what is?). A word for
# the person's own state (觉得很累) is a claim about them, and stays.
_ZH_EMPTY = re.compile(
    r"^(?:还|還|挺|很|非常|特别|特別|比较|比較|蛮|蠻|真|太|更|有点|有點|有些|也|都|确实|確實|真的|其实|其實|总体|總體)*"
    r"(?:不错|不錯|好|一般般?|还行|還行|还可以|還可以|可以|行|不行|有道理|有意思|没意思|沒意思|有趣|值得|不值得|对|對|"
    r"没错|沒錯|合理|重要|有用|没用|沒用|厉害|厲害|棒|好看|难看|難看|好吃|好玩|无聊|無聊|不好|差|靠谱|靠譜|不靠谱|"
    r"不靠譜|有必要|没必要|沒必要|必要|正确|正確|有价值|有價值|没问题|沒問題|满意|滿意|一样|一樣|不一样|不一樣)"
    r"[的了啊呀吧呢]*$")
# A reason, a condition or a concession alone, no clause after it (因为工作的原因): what it leads to is in the note.
_ZH_CLAUSE_ALONE = re.compile(
    r"^(?:因为|因為|由于|由於|虽然|雖然|尽管|儘管|即使|如果|假如|要是)[^，,；;。所就才但却卻也还還]*$")
# What says something of a noun: a verb, a copula, a degree, a negation, a modal or a comparison.
_ZH_PREDICATE = re.compile(
    r"[是有没沒无無很更最太真挺蛮蠻不会會能要该該可比越了过過都也就才还還在让讓使给給得算像需值等靠变變成好多少够夠对對错錯]")
# A phrase opened by 跟/和/从/对… ("with", "from", "to") needs a verb after it: closed by a locative alone
# (想跟老照片中, 从网上), it was cut. 想在家里 too: 在 right after 想 opens a place the verb should follow.
_ZH_COVERB_CUT = re.compile(
    r"(?:[跟和与與同从從对對向替][^在到去来來住回进進待留放搬入至于於]{2,12}?"
    r"|(?:想|要|打算|准备|準備|计划|計劃|希望)在[^在到去来來住回进進待留放搬入至于於]{1,12}?)[中里裡上内內下]$")
_ZH_GOAL = r"(?:想|(?<![重需主只])要|打算|准备|準備|希望)"
_ZH_READERS = r"(?:你们|你們|大家|各位|读者|讀者)"
_ZH_TO_A_READER = re.compile(
    rf"{_ZH_GOAL}(?:简单|簡單|先|再|来|來)?地?(?:能|可以)?"
    rf"(?:[和跟给給与與向]{_ZH_READERS}|(?:告诉|告訴|教|帮|幫|向|给|給)(?:你|您)|分享|介绍|介紹|"
    r"(?:讲讲|講講|聊聊|谈谈|談談|说说|說說)(?!天|恋爱|戀愛)|(?:记录|記錄|总结|總結|讲|講)一下|"
    r"讨论|討論|探讨|探討|谈一谈|談一談|讲一讲|講一講|多说一点|多說一點)"
    rf"|^{_ZH_GOAL}.*{_ZH_READERS}")


def zh_problem(text: str) -> Problem | None:
    """What keeps a Chinese text from standing alone (standalone.py says each rule), or None when it stands."""
    if _ZH_IT.search(text) or _ZH_DEMONSTRATIVE.search(text) or _ZH_PERSON_LAST.search(text) or _unnamed(text):
        return "pronoun"
    if _ZH_CUT.search(text) or _ZH_COVERB_CUT.search(text) or _ZH_CLAUSE_ALONE.match(text):
        return "cut"
    if text.startswith("是") and not describes_a_person(text[1:]):
        return "not_who"
    thinks = _ZH_THINKS.match(text)
    if thinks and _no_claim(thinks["verb"], thinks["claim"].strip()):
        return "no_claim"
    if thinks and _ZH_EMPTY.match(thinks["claim"].strip()):
        return "empty"
    return "reader" if _ZH_TO_A_READER.search(text) else None


def describes_a_person(phrase: str) -> bool:
    """Whether a Chinese phrase after 是 is a noun phrase that can describe a person ("一名软件工程师", "上海人").

    Its head (its last word) names a kind of person or is a name (杨希杰), or it is a trade + 的 (做设计的,
    吃素的); it opens with no word of speech, thought or cause (是说, 是觉得, 是因为), nor with a verb or an
    adverb unless that opens a clause before 的 (是在农村长大的人), and its head holds no verb's aspect
    (了, 过, 着): a clause before 的 may.
    """
    phrase = " ".join(phrase.split()).rstrip(TRAILING)
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
    if verb in {"相信", "坚信", "堅信", "深信"} or _ZH_CLAUSES.search(claim):
        return False
    alone = _ZH_NOUN_ALONE.match(claim)
    return alone is not None and not _ZH_PREDICATE.search(alone["noun"])


def _unnamed(text: str) -> bool:
    """Whether a 他/她 in the text has no one named before it to stand for (经常跟他一起打球)."""
    he = _ZH_HE.search(text)
    return he is not None and not _ZH_SOMEONE.search(text[: he.start()])


def a_person(phrase: str) -> bool:
    """Whether a Chinese phrase ends on a word for a person (妈妈, 老板, 朋友, 作者, 同事)."""
    return bool(_ZH_PERSON_HEAD.search(phrase))
