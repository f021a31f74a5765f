"""The offline extractor: first-person sentences → (dimension, wording); other people's words are left alone."""

from __future__ import annotations

import pytest
from vault_helpers import day

from hylo_memory.decay import Dimension
from hylo_memory.domain.sources import Perspective, Source, SourceKind
from hylo_memory.extractors.base import AuthorProfile, Cluster
from hylo_memory.extractors.offline.offline import OfflineExtractor, trait_wording
from hylo_memory.extractors.offline.patterns import statements

I, P, G, B, PE, S = (Dimension.identity, Dimension.preferences, Dimension.goals, Dimension.beliefs, Dimension.people,
                     Dimension.state)

EXTRACTED = [
    # identity
    ("My name is Maya Okafor.", I, "Name is Maya Okafor"),
    ("I work as a data engineer at Tramline.", I, "Works as a data engineer at Tramline"),
    ("I'm an editor at Penguin.", I, "Works as an editor at Penguin"),
    ("I work at Tramline.", I, "Works at Tramline"),
    ("I live in Lisbon.", I, "Lives in Lisbon"),
    ("I moved to Porto last year.", I, "Lives in Porto"),
    ("I'm from Lagos.", I, "Is from Lagos"),
    ("I speak Portuguese, English and Yoruba.", I, "Speaks English, Portuguese and Yoruba"),
    # preferences
    ("I love running before the city wakes up.", P, "Loves running before the city wakes up"),
    ("I really enjoy grilled sardines.", P, "Enjoys grilled sardines"),
    ("I like my coffee black.", P, "Likes their coffee black"),
    ("I prefer tea over coffee.", P, "Prefers tea over coffee"),
    ("I hate Jira.", P, "Dislikes Jira"),
    ("I can't stand open-plan offices.", P, "Dislikes open-plan offices"),
    ("My favourite editor is Neovim.", P, "Favourite editor: Neovim"),
    ("I always use Neovim for everything.", P, "Uses Neovim"),
    ("I'm vegetarian.", P, "Is vegetarian"),
    ("Honestly I love Postgres, but not its vacuum.", P, "Loves Postgres"),
    ("I love Postgres — especially its docs.", P, "Loves Postgres"),
    # a liking that ended: a change, worded so it may supersede the old liking (rule H)
    ("I don't like cold brew anymore.", P, "No longer likes cold brew"),
    ("I don’t really love Jira any more.", P, "No longer loves Jira"),
    ("I no longer enjoy long runs.", P, "No longer enjoys long runs"),
    ("I've stopped liking cold brew.", P, "No longer likes cold brew"),
    # goals
    ("I want to run a marathon.", G, "Wants to run a marathon"),
    ("My goal is to reach 1,000 listeners.", G, "Goal: reach 1,000 listeners"),
    ("I'm working on the Dagster migration.", G, "Working on the Dagster migration"),
    ("I plan to visit Kyoto in spring.", G, "Plans to visit Kyoto in spring"),
    # beliefs
    ("I believe boring technology is underrated.", B, "Believes boring technology is underrated"),
    ("I think that data contracts are a social problem.", B, "Thinks data contracts are a social problem"),
    ("I'm convinced that tests are specifications.", B, "Is convinced tests are specifications"),
    # people
    ("My sister Ines lives in Porto.", PE, "Ines — sister"),
    ("Kwame, my best friend, called.", PE, "Kwame — best friend"),
    ("Lunch with my manager, Rui.", PE, "Rui — manager"),
    # state
    ("I'm so stressed about the cutover.", S, "Feeling stressed about the cutover"),
    ("I feel exhausted after the offsite.", S, "Feeling exhausted after the offsite"),
    ("I feel stretched thin.", S, "Feels stretched thin"),
    # the curly apostrophe is an apostrophe
    ("I’m from Lagos.", I, "Is from Lagos"),
    # a sentence in a list item
    ("- I live in Lisbon.", I, "Lives in Lisbon"),
    # where one works, said either way round, is one fact
    ("I work in Beijing as a software engineer.", I, "Works as a software engineer in Beijing"),
    ("I work as a software engineer in Beijing.", I, "Works as a software engineer in Beijing"),
    # Chinese: worded in Chinese, without the leading 我 (docs/spec.md §5)
    ("我是一名软件工程师。", I, "是一名软件工程师"),
    ("我叫张伟。", I, "叫张伟"),
    ("我的名字是李娜。", I, "名字是李娜"),
    ("我住在北京。", I, "住在北京"),
    ("我现在住在上海", I, "住在上海"),
    ("我搬到了深圳。", I, "住在深圳"),
    ("我在腾讯工作。", I, "在腾讯工作"),
    ("我在学校工作。", I, "在学校工作"),
    ("我在北京当程序员。", I, "在北京当程序员"),
    ("我来自成都。", I, "来自成都"),
    ("我会说中文和英语。", I, "会说中文和英语"),
    ("我是素食者。", P, "是素食者"),
    ("我吃素。", P, "吃素"),
    ("我喜欢跑步。", P, "喜欢跑步"),
    ("我很喜欢跑步，但是不喜欢游泳。", P, "喜欢跑步"),
    ("我爱喝咖啡。", P, "爱喝咖啡"),
    ("我喜欢我的工作。", P, "喜欢自己的工作"),
    ("我讨厌开会。", P, "讨厌开会"),
    ("我不喜欢早起！", P, "不喜欢早起"),
    ("我不再喜欢喝茶了。", P, "不再喜欢喝茶了"),
    ("我已经不喜欢喝茶了。", P, "不喜欢喝茶了"),
    ("我最喜欢的书是《三体》。", P, "最喜欢的书是《三体》"),
    ("我想学会游泳。", G, "想学会游泳"),
    ("我明年想去日本。", G, "明年想去日本"),
    ("我打算换工作。", G, "打算换工作"),
    ("我的目标是明年学会游泳", G, "目标是明年学会游泳"),
    ("我最近在学吉他。", G, "最近在学吉他"),
    ("我觉得教育很重要。", B, "觉得教育很重要"),
    ("我相信努力会有回报。", B, "相信努力会有回报"),
    ("我认为简单的技术更可靠。", B, "认为简单的技术更可靠"),
    ("我的妹妹小红住在上海。", PE, "小红 — 妹妹"),
    ("我的哥哥张伟在上海工作。", PE, "张伟 — 哥哥"),
    ("张伟是我的哥哥。", PE, "张伟 — 哥哥"),
    ("我女朋友叫王芳。", PE, "王芳 — 女朋友"),
    ("李明，我的同事，今天请假了。", PE, "李明 — 同事"),
    ("我和我的朋友Ana去爬山。", PE, "Ana — 朋友"),
    ("我最近压力很大", S, "最近压力很大"),
    ("我最近工作压力很大，因为项目快上线了。", S, "最近工作压力很大"),
    ("今天我很开心。", S, "今天很开心"),
    ("我今天累死了", S, "今天累死了"),
    ("这周我有点焦虑。", S, "这周有点焦虑"),
    ("我有点焦虑。", S, "有点焦虑"),
    ("我很累。", S, "很累"),
    ("我觉得很疲惫。", S, "觉得很疲惫"),
    ("- 我住在北京", I, "住在北京"),
]

NOT_EXTRACTED = [
    # quoted speech: someone else's words
    ('She said "I love Jira" and laughed.', "double quotes"),
    ("He told me “I live in Paris.”", "curly double quotes"),
    ("‘I love Jira,’ she said.", "curly single quotes"),
    ("‘I’m so stressed,’ she said.", "curly single quotes around an apostrophe"),
    ("Elle a dit «I love Jira».", "guillemets"),
    ('He wrote: "I live in Paris. I believe in magic." Then he left.', "a quotation of several sentences"),
    # block quotes
    ("> I believe in magic.", "a block quote"),
    ("   > I live in Paris.", "an indented block quote"),
    (">> I love Jira.", "a nested block quote"),
    # not about the author
    ("The team loves Jira.", "third person"),
    ("We believe in testing.", "first person plural"),
    # not a statement
    ("Do I really want to quit?", "a question"),
    ("Why do I hate Mondays?", "a question"),
    ("If I moved to Berlin, I would miss the sea.", "a supposition"),
    ("Unless I live in Porto by then, we'll see.", "a supposition"),
    # negated, past or vague
    ("I don't like Jira.", "a negation"),
    ("I never use Emacs.", "a negation"),
    ("I used to live in Berlin.", "the past"),
    ("I love it.", "a pronoun for an object"),
    ("I no longer like it.", "a pronoun for an object, after a liking that ended"),
    ("I hate that.", "a pronoun for an object"),
    ("I love it when I win.", "a wording still in the first person"),
    ("I think it will rain.", "an opinion about the weather, not a belief"),
    ("I feel like a walk.", "a passing wish"),
    ("i live in lisbon.", "a place without its capital"),
    ("", "nothing"),
    # Chinese: someone else's words, not the author's
    ("他说“我喜欢跑步”。", "curly double quotes"),
    ("「我住在巴黎。」她说。", "corner brackets"),
    ("『我是素食者』", "white corner brackets"),
    ("她说：我很累。", "reported speech after 说："),
    ("她说我是傻瓜。", "我 as the object of someone else's words"),
    ("他们觉得我很累。", "someone else's opinion of the author"),
    ("我们喜欢爬山。", "我们: first person plural"),
    ("我们的目标是赢得比赛。", "我们的: first person plural"),
    ("我们最近压力很大。", "我们: first person plural"),
    ("我们的朋友张伟来了。", "我们的: first person plural"),
    ("自我提升很重要。", "自我: the self, not the author"),
    ("她很开心。", "third person"),
    # Chinese: not a statement
    ("我是素食者吗？", "a question"),
    ("我喜欢跑步吗", "a question without ？"),
    ("我是不是太累了", "an A-not-A question"),
    ("我为什么这么累。", "a why question"),
    ("如果我住在北京，生活会很方便。", "a supposition"),
    ("要是我明年想去日本", "a supposition"),
    # Chinese: vague, or not what it looks like
    ("我喜欢它。", "a pronoun for an object"),
    ("我爱你。", "a pronoun for an object"),
    ("我想念我的妈妈。", "想念 misses, it does not want"),
    ("我想他是对的。", "我想 thinks, it does not want"),
    ("我觉得还行。", "too vague to be a belief"),
    ("我觉得明天会下雨。", "an opinion about the weather, not a belief"),
    ("我是说我们应该早点走。", "我是说: 'I mean'"),
    ("我爱人是医生。", "我爱人: 'my spouse', not a liking"),
    ("我的哥哥是医生。", "a relation with no name"),
]


@pytest.mark.parametrize(("sentence", "dimension", "wording"), EXTRACTED, ids=[c[0] for c in EXTRACTED])
def test_sentence_gives_this_dimension_and_wording(sentence: str, dimension: Dimension, wording: str) -> None:
    assert statements(sentence) == [(dimension, wording)]


@pytest.mark.parametrize(("sentence", "why"), NOT_EXTRACTED, ids=[c[1] + ": " + c[0] for c in NOT_EXTRACTED])
def test_sentence_gives_nothing(sentence: str, why: str) -> None:
    assert statements(sentence) == []


def test_authors_sentence_after_a_block_quote_is_still_extracted() -> None:
    text = "> I believe in magic.\n> I live in Paris.\n\nI live in Lisbon."
    assert statements(text) == [(I, "Lives in Lisbon")]


def test_authors_sentence_beside_a_quotation_is_still_extracted() -> None:
    assert statements('Joana said "I hate podcasts." I love podcasts.') == [(P, "Loves podcasts")]


def test_a_quotation_across_lines_is_not_extracted() -> None:
    assert statements('"I love\nJira," she said.') == []


def test_supposition_is_only_the_clause_it_opens() -> None:
    assert statements("If it rains, I love staying in.") == [(P, "Loves staying in")]


def test_one_sentence_may_give_several_dimensions() -> None:
    assert statements("I'm a nurse at Santa Maria, and I love night shifts.") == [
        (I, "Works as a nurse at Santa Maria"), (P, "Loves night shifts"),
    ]


def test_chinese_sentences_split_without_spaces() -> None:
    assert statements("我住在北京。我喜欢喝茶！我有点累") == [(I, "住在北京"), (P, "喜欢喝茶"), (S, "有点累")]


def test_a_note_mixing_english_and_chinese_gives_both() -> None:
    text = "I live in Lisbon. 我喜欢喝茶。I love tea.\n我的妹妹小红住在上海。My sister Ines lives in Porto."
    assert statements(text) == [
        (I, "Lives in Lisbon"), (P, "喜欢喝茶"), (P, "Loves tea"), (PE, "小红 — 妹妹"), (PE, "Ines — sister"),
    ]


def test_a_chinese_supposition_is_only_the_clause_it_opens() -> None:
    assert statements("如果下雨，我喜欢待在家里。") == [(P, "喜欢待在家里")]


def test_a_chinese_sentence_beside_a_quotation_is_still_extracted() -> None:
    assert statements("她说“我讨厌播客”。我喜欢播客。") == [(P, "喜欢播客")]


def test_the_same_statement_twice_in_a_note_is_one_wording() -> None:
    assert statements("I love tea. Later: I love tea.") == [(P, "Loves tea")]


# The extractor over sources


def source(text: str, perspective: Perspective = Perspective.own, kind: SourceKind = SourceKind.short) -> Source:
    return Source(path="_shorts/2026-11-29-a.md", kind=kind, date=day("2026-11-29"), text=text, content_hash="h",
                  perspective=perspective)


def test_extractor_gives_evidence_dated_and_sourced_by_its_note() -> None:
    [evidence] = OfflineExtractor().extract([source("I live in Lisbon.")], AuthorProfile(), []).evidence
    assert (evidence.dimension, evidence.text, evidence.source, evidence.date) == (
        I, "Lives in Lisbon", "_shorts/2026-11-29-a.md", day("2026-11-29"),
    )


def test_extractor_gives_nothing_from_an_external_source() -> None:
    unit = source("I believe in magic. My sister Ana agrees.", Perspective.external, SourceKind.knowledge)
    assert OfflineExtractor().extract([unit], AuthorProfile(), []).evidence == []


def test_extractor_never_fails_a_source() -> None:
    assert OfflineExtractor().extract([source("\x7f garbage ☃")], AuthorProfile(), []).failed == []


def test_synthesis_gives_one_preference_per_unit_of_the_cluster() -> None:
    cluster = Cluster(tags=["consensus", "databases"], titles=["Raft", "Paxos"],
                      sources=["_knowledge/raft.md", "_knowledge/paxos.md"], date=day("2026-11-25"))
    evidence = OfflineExtractor().synthesise([cluster], AuthorProfile()).evidence
    assert [(e.dimension, e.text, e.source, e.date) for e in evidence] == [
        (P, "Keeps coming back to consensus and databases", "_knowledge/raft.md", day("2026-11-25")),
        (P, "Keeps coming back to consensus and databases", "_knowledge/paxos.md", day("2026-11-25")),
    ]


@pytest.mark.parametrize(("tags", "wording"), [
    (["fermentation"], "Keeps coming back to fermentation"),
    (["distributed-systems", "databases"], "Keeps coming back to distributed systems and databases"),
    (["a", "b", "c", "d"], "Keeps coming back to a, b and c"),
])
def test_trait_wording_names_the_strongest_themes(tags: list[str], wording: str) -> None:
    cluster = Cluster(tags=tags, titles=["x", "y"], sources=["x", "y"], date=day("2026-11-25"))
    assert trait_wording(cluster) == wording


@pytest.mark.parametrize(("text", "dimension"), [
    ("I feel tired today", Dimension.state),
    ("I want to learn Rust", Dimension.goals),
    ("My sister is called Ana", Dimension.people),
    ("I believe in public transport", Dimension.beliefs),
    ("I live in Lisbon", Dimension.identity),
    ("Always answer in English", Dimension.preferences),
])
def test_classify_files_a_stated_fact_by_keywords(text: str, dimension: Dimension) -> None:
    assert OfflineExtractor().classify(text, None, None).dimension is dimension


@pytest.mark.parametrize(("dimension", "pinned"), [(d, d not in (Dimension.goals, Dimension.state)) for d in Dimension])
def test_classify_pins_standing_facts_but_not_goals_or_state(dimension: Dimension, pinned: bool) -> None:
    assert OfflineExtractor().classify("Something", dimension, None).pinned is pinned
