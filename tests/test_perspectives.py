"""The author profile (docs/spec.md §4.2), knowledge-unit perspectives and the external pool (docs/spec.md §4.5)."""

from __future__ import annotations

from pathlib import Path

from vault_helpers import MEMORY, day, identity, items, memory_file, parse_memory, run, short, texts, unit

from hylo_memory.decay import Dimension, Evidence
from hylo_memory.domain.sources import Perspective, Source, SourceKind
from hylo_memory.extractors.base import AuthorProfile, Candidate, Extraction, Progress
from hylo_memory.extractors.offline.offline import OfflineExtractor
from hylo_memory.pipeline.run.profile import build_profile, judge_perspective

TODAY = day("2026-11-30")
OPINIONATED = "I believe remote work is the future. My sister Ana agrees. I live in Berlin. I love cold brew."


def identity_file(tmp_path: Path, *facts: str):
    lines = "".join(f"- {f} `last:2026-11-01 seen:1`\n" for f in facts)
    return parse_memory(memory_file(tmp_path, Dimension.identity, f"## Active\n{lines}\n## Fading\n"), Dimension.identity)


def goals_file(tmp_path: Path, *goals: str):
    lines = "".join(f"- {g} `last:2026-11-01 seen:1`\n" for g in goals)
    return parse_memory(memory_file(tmp_path, Dimension.goals, f"## Active\n{lines}\n## Fading\n"), Dimension.goals)


def knowledge(path: str = "_knowledge/u.md", perspective: Perspective | None = None, source_notes: list[str] | None = None) -> Source:
    return Source(path=path, kind=SourceKind.knowledge, date=TODAY, text="", content_hash="h",
                  perspective=perspective, source_notes=source_notes or [])


# The author profile


def test_profile_takes_the_name_from_identity(tmp_path: Path) -> None:
    profile = build_profile(identity_file(tmp_path, "Name is Maya Okafor"), None, None)
    assert profile.name == "Maya Okafor"


def test_profile_takes_roles_from_identity(tmp_path: Path) -> None:
    profile = build_profile(identity_file(tmp_path, "Works as a data engineer at Tramline"), None, None)
    assert profile.roles == ["data engineer"]


def test_profile_takes_aliases_from_identity(tmp_path: Path) -> None:
    profile = build_profile(identity_file(tmp_path, "Goes by mokafor online"), None, None)
    assert profile.aliases == ["mokafor"]


def test_profile_takes_projects_from_goals(tmp_path: Path) -> None:
    profile = build_profile(None, goals_file(tmp_path, "Working on Hylo Sync", "Grow my podcast Small Data"), None)
    assert profile.projects == ["Hylo Sync", "Small Data"]


def test_profile_takes_name_projects_people_and_aliases_from_the_intro() -> None:
    profile = build_profile(None, None, "I'm Maya Okafor. I host the podcast Small Data. My sister Ines lives "
                                        "nearby. Also known as mo.")
    assert (profile.name, profile.projects, profile.people, profile.aliases) == (
        "Maya Okafor", ["Small Data"], ["Ines"], ["mo"],
    )


def test_profile_takes_a_role_from_the_intro() -> None:
    assert build_profile(None, None, "I am a product designer at Acme.").roles == ["product designer"]


def test_profile_merges_identity_goals_and_intro(tmp_path: Path) -> None:
    profile = build_profile(identity_file(tmp_path, "Name is Maya Okafor"), goals_file(tmp_path, "Working on Hylo Sync"),
                            "I run Bread Club.")
    assert (profile.name, profile.projects) == ("Maya Okafor", ["Hylo Sync", "Bread Club"])


def test_profile_keeps_each_project_once(tmp_path: Path) -> None:
    profile = build_profile(None, goals_file(tmp_path, "Working on Hylo Sync"), "I'm working on Hylo Sync.")
    assert profile.projects == ["Hylo Sync"]


def test_profile_name_from_identity_wins_over_the_intro(tmp_path: Path) -> None:
    profile = build_profile(identity_file(tmp_path, "Name is Maya Okafor"), None, "My name is Mo.")
    assert profile.name == "Maya Okafor"


def test_profile_without_any_input_is_empty() -> None:
    assert build_profile(None, None, None) == AuthorProfile()


def test_profile_does_not_take_an_article_for_a_name() -> None:
    assert build_profile(None, None, "I am a product designer.").name is None


# Judging a missing perspective


def test_stated_perspective_is_kept() -> None:
    unit_ = knowledge(perspective=Perspective.external, source_notes=["_shorts/2026-11-01-a.md"])
    assert judge_perspective(unit_, AuthorProfile()) is Perspective.external


def test_unit_without_source_notes_is_personal() -> None:
    assert judge_perspective(knowledge(), AuthorProfile()) is Perspective.own


def test_unit_from_the_authors_short_notes_is_their_own() -> None:
    assert judge_perspective(knowledge(source_notes=["_shorts/2026-11-01-a.md"]), AuthorProfile()) is Perspective.own


def test_unit_from_a_folder_of_the_authors_own_project_is_their_own() -> None:
    profile = AuthorProfile(projects=["Small Data"])
    unit_ = knowledge(source_notes=["projects/small-data/episodes/ep12.md"])
    assert judge_perspective(unit_, profile) is Perspective.own


def test_unit_from_a_folder_named_for_the_author_is_their_own() -> None:
    profile = AuthorProfile(name="Maya Okafor")
    assert judge_perspective(knowledge(source_notes=["people/maya-okafor/talk.md"]), profile) is Perspective.own


def test_unit_from_a_folder_named_for_an_alias_is_their_own() -> None:
    profile = AuthorProfile(aliases=["mokafor"])
    assert judge_perspective(knowledge(source_notes=["/mokafor/blog/post.md"]), profile) is Perspective.own


def test_unit_from_sources_outside_the_authors_projects_is_external() -> None:
    profile = AuthorProfile(projects=["Small Data"])
    assert judge_perspective(knowledge(source_notes=["clippings/rents.md"]), profile) is Perspective.external


def test_a_file_named_like_the_project_outside_its_folder_is_not_the_authors() -> None:
    profile = AuthorProfile(projects=["Small Data"])
    assert judge_perspective(knowledge(source_notes=["clippings/small-data.md"]), profile) is Perspective.external


def test_unit_from_own_and_outside_sources_is_mixed() -> None:
    profile = AuthorProfile(projects=["Small Data"])
    unit_ = knowledge(source_notes=["projects/small-data/ep12.md", "clippings/rents.md"])
    assert judge_perspective(unit_, profile) is Perspective.mixed


# Perspectives through a run


def test_own_unit_gives_all_six_dimensions(tmp_path: Path) -> None:
    unit(tmp_path, "mine", OPINIONATED + " I feel tired. I want to learn Go.", "2026-11-29", title="Mine", perspective="own")
    run(tmp_path, TODAY)
    assert {d: bool(texts(tmp_path, d)) for d in Dimension} == {d: True for d in Dimension}


def test_external_unit_gives_no_beliefs_even_with_unquoted_first_person_sentences(tmp_path: Path) -> None:
    unit(tmp_path, "talk", OPINIONATED, "2026-11-29", title="A talk", perspective="external")
    run(tmp_path, TODAY)
    assert texts(tmp_path, Dimension.beliefs) == set()


def test_external_unit_gives_no_people_even_with_unquoted_first_person_sentences(tmp_path: Path) -> None:
    unit(tmp_path, "talk", OPINIONATED, "2026-11-29", title="A talk", perspective="external")
    run(tmp_path, TODAY)
    assert texts(tmp_path, Dimension.people) == set()


def test_single_external_unit_changes_no_memory_file_at_all(tmp_path: Path) -> None:
    unit(tmp_path, "talk", OPINIONATED, "2026-11-29", title="A talk", tags=["remote-work"], perspective="external")
    summary = run(tmp_path, TODAY)
    assert (summary.sources.knowledge, summary.changed_files) == (1, [])


def test_unit_judged_external_from_its_source_notes_gives_no_beliefs_or_people(tmp_path: Path) -> None:
    unit(tmp_path, "talk", OPINIONATED, "2026-11-29", title="A talk", source_notes=["clippings/talk.md"])
    run(tmp_path, TODAY)
    assert texts(tmp_path, Dimension.beliefs) | texts(tmp_path, Dimension.people) == set()


def test_unit_without_perspective_or_source_notes_gives_beliefs_and_people(tmp_path: Path) -> None:
    unit(tmp_path, "mine", OPINIONATED, "2026-11-29", title="Mine")
    run(tmp_path, TODAY)
    assert (texts(tmp_path, Dimension.beliefs), texts(tmp_path, Dimension.people)) == (
        {"Believes remote work is the future"}, {"Ana — sister"},
    )


def test_unit_without_perspective_from_the_authors_project_gives_beliefs(tmp_path: Path) -> None:
    memory_file(tmp_path, Dimension.goals, "## Active\n- Grow my podcast Small Data `last:2026-11-01 seen:1`\n")
    unit(tmp_path, "ep12", OPINIONATED, "2026-11-29", title="Episode 12", source_notes=["projects/small-data/ep12.md"])
    run(tmp_path, TODAY)
    assert texts(tmp_path, Dimension.beliefs) == {"Believes remote work is the future"}


def test_mixed_unit_gives_the_authors_own_first_person_statements(tmp_path: Path) -> None:
    unit(tmp_path, "take", 'The speaker said "I believe microservices are a fad." I believe monoliths are fine.',
         "2026-11-29", title="A talk and my take", perspective="mixed")
    run(tmp_path, TODAY)
    assert texts(tmp_path, Dimension.beliefs) == {"Believes monoliths are fine"}


class EveryDimensionExtractor(OfflineExtractor):
    """An over-eager extractor (as an LLM might be): a belief and a person from every source it can name."""

    def __init__(self, paths: list[str]):
        self.paths = paths

    def extract(self, sources: list[Source], profile: AuthorProfile, existing: list[Candidate],
                progress: Progress | None = None) -> Extraction:
        return Extraction(evidence=[
            Evidence(dimension=d, text=f"{d.value} from {p}", source=p)
            for p in self.paths for d in (Dimension.beliefs, Dimension.people)
        ])


def test_evidence_an_extractor_claims_from_an_external_unit_is_dropped(tmp_path: Path) -> None:
    unit(tmp_path, "talk", "A talk.", "2026-11-29", title="A talk", perspective="external")
    short(tmp_path, "2026-11-29", "Nothing personal today.")  # so that the extractor is asked at all
    summary = run(tmp_path, TODAY, extractor=EveryDimensionExtractor(["_knowledge/talk.md"]))
    assert (summary.changed_files, summary.dropped_evidence) == ([], 2)


# The external pool


def test_two_external_units_sharing_a_tag_give_one_synthesised_preference(tmp_path: Path) -> None:
    unit(tmp_path, "raft", "Leader election.", "2026-11-20", title="Raft talk", tags=["consensus", "databases"],
         perspective="external")
    unit(tmp_path, "paxos", "Prepare and accept.", "2026-11-25", title="Paxos paper", tags=["consensus"],
         perspective="external")
    run(tmp_path, TODAY)
    assert items(tmp_path, Dimension.preferences) == {"Keeps coming back to consensus and databases": ("Active", 2, False)}


def test_synthesised_preference_is_seen_once_per_unit_in_its_cluster(tmp_path: Path) -> None:
    for name in ("raft", "paxos", "zab"):
        unit(tmp_path, name, "Notes.", "2026-11-20", title=name.title(), tags=["consensus"], perspective="external")
    run(tmp_path, TODAY)
    assert [seen for _, seen, _ in items(tmp_path, Dimension.preferences).values()] == [3]


def test_synthesised_preference_is_dated_by_the_newest_unit(tmp_path: Path) -> None:
    unit(tmp_path, "raft", "Notes.", "2026-11-10", title="Raft", tags=["consensus"], perspective="external")
    unit(tmp_path, "paxos", "Notes.", "2026-11-25", title="Paxos", tags=["consensus"], perspective="external")
    run(tmp_path, TODAY)
    memory = parse_memory(tmp_path / MEMORY / "_preferences.md", Dimension.preferences)
    assert [i.last for i in memory.active] == [day("2026-11-25")]


def test_synthesised_preference_reads_like_a_trait_not_a_reading_log(tmp_path: Path) -> None:
    unit(tmp_path, "raft", "Notes.", "2026-11-20", title="Raft talk", tags=["consensus"], perspective="external")
    unit(tmp_path, "paxos", "Notes.", "2026-11-25", title="Paxos paper", tags=["consensus"], perspective="external")
    run(tmp_path, TODAY)
    [wording] = texts(tmp_path, Dimension.preferences)
    assert "consensus" in wording and "Raft" not in wording and "Paxos" not in wording


def test_single_unit_cluster_is_dropped(tmp_path: Path) -> None:
    unit(tmp_path, "stars", "Exoplanets.", "2026-11-20", title="Planetarium talk", tags=["astronomy"],
         perspective="external")
    unit(tmp_path, "raft", "Notes.", "2026-11-20", title="Raft", tags=["consensus"], perspective="external")
    run(tmp_path, TODAY)
    assert texts(tmp_path, Dimension.preferences) == set()


def test_each_cluster_of_two_or_more_gives_its_own_preference(tmp_path: Path) -> None:
    for name, tag in (("raft", "consensus"), ("paxos", "consensus"), ("kraut", "fermentation"), ("kimchi", "fermentation"),
                      ("stars", "astronomy")):
        unit(tmp_path, name, "Notes.", "2026-11-20", title=name.title(), tags=[tag], perspective="external")
    run(tmp_path, TODAY)
    assert texts(tmp_path, Dimension.preferences) == {"Keeps coming back to consensus", "Keeps coming back to fermentation"}


def test_mixed_unit_joins_the_external_pool(tmp_path: Path) -> None:
    unit(tmp_path, "raft", "Notes.", "2026-11-20", title="Raft", tags=["consensus"], perspective="external")
    unit(tmp_path, "take", "Notes and my take.", "2026-11-22", title="My take on Paxos", tags=["consensus"],
         perspective="mixed")
    run(tmp_path, TODAY)
    assert items(tmp_path, Dimension.preferences) == {"Keeps coming back to consensus": ("Active", 2, False)}


def test_own_units_do_not_join_the_external_pool(tmp_path: Path) -> None:
    unit(tmp_path, "raft", "Notes.", "2026-11-20", title="Raft", tags=["consensus"], perspective="external")
    unit(tmp_path, "mine", "Notes.", "2026-11-22", title="My consensus bug", tags=["consensus"], perspective="own")
    run(tmp_path, TODAY)
    assert texts(tmp_path, Dimension.preferences) == set()


def test_external_units_without_a_shared_tag_do_not_cluster(tmp_path: Path) -> None:
    unit(tmp_path, "raft", "Notes.", "2026-11-20", title="Raft", tags=["consensus"], perspective="external")
    unit(tmp_path, "kraut", "Notes.", "2026-11-20", title="Sauerkraut", tags=["fermentation"], perspective="external")
    run(tmp_path, TODAY)
    assert texts(tmp_path, Dimension.preferences) == set()


def test_untagged_external_units_cluster_by_their_titles(tmp_path: Path) -> None:
    unit(tmp_path, "a", "Notes.", "2026-11-20", title="Sourdough starters", perspective="external")
    unit(tmp_path, "b", "Notes.", "2026-11-21", title="Sourdough hydration", perspective="external")
    run(tmp_path, TODAY)
    assert [seen for _, seen, _ in items(tmp_path, Dimension.preferences).values()] == [2]


def test_units_sharing_tags_transitively_form_one_cluster(tmp_path: Path) -> None:
    unit(tmp_path, "a", "Notes.", "2026-11-20", title="A", tags=["indie-dev", "startup"], perspective="external")
    unit(tmp_path, "b", "Notes.", "2026-11-20", title="B", tags=["ai", "startup"], perspective="external")
    unit(tmp_path, "c", "Notes.", "2026-11-20", title="C", tags=["ai", "llm"], perspective="external")
    run(tmp_path, TODAY)
    assert [seen for _, seen, _ in items(tmp_path, Dimension.preferences).values()] == [3]


def test_external_units_give_only_the_pool_preference(tmp_path: Path) -> None:
    unit(tmp_path, "a", OPINIONATED, "2026-11-20", title="A", tags=["work"], perspective="external")
    unit(tmp_path, "b", OPINIONATED, "2026-11-21", title="B", tags=["work"], perspective="external")
    summary = run(tmp_path, TODAY)
    assert (summary.changed_files, texts(tmp_path, Dimension.preferences)) == (
        ["_preferences.md"], {"Keeps coming back to work"},
    )


def test_a_unit_citing_notes_in_an_extra_scan_path_is_the_authors_own(tmp_path: Path) -> None:
    profile = build_profile(None, None, None, ["journal/"])
    unit_source = Source(path="_knowledge/u.md", kind=SourceKind.knowledge, date=day("2026-11-20"), text="x",
                         content_hash="h", source_notes=["journal/2026-11-19.md"])
    assert judge_perspective(unit_source, profile) == Perspective.own


# The pool outlives a run: themes form across nights


def nightly_unit(root: Path, name: str, when: str, tags: list[str]) -> None:
    unit(root, name, "Someone else's talk.", when, title=name.title(), tags=tags, perspective="external")


def test_units_read_on_different_nights_form_one_theme(tmp_path: Path) -> None:
    identity(tmp_path, "Name is Test Person")  # incremental runs: a 2-day window each night
    nightly_unit(tmp_path, "raft", "2026-11-10", ["consensus"])
    run(tmp_path, "2026-11-10")
    assert texts(tmp_path, Dimension.preferences) == set()  # one reading is not a preference yet
    nightly_unit(tmp_path, "paxos", "2026-11-12", ["consensus"])
    run(tmp_path, "2026-11-12")
    assert [seen for _, seen, _ in items(tmp_path, Dimension.preferences).values()] == [1]


def test_a_theme_keeps_its_wording_and_counts_each_new_unit_once(tmp_path: Path) -> None:
    identity(tmp_path, "Name is Test Person")
    for name, night in (("raft", "2026-11-10"), ("paxos", "2026-11-10"), ("zab", "2026-11-14")):
        nightly_unit(tmp_path, name, night, ["consensus", name])
    run(tmp_path, "2026-11-10")
    [first] = texts(tmp_path, Dimension.preferences)
    run(tmp_path, "2026-11-14")
    assert items(tmp_path, Dimension.preferences) == {first: ("Active", 3, False)}
    run(tmp_path, "2026-11-14")  # nothing new: nothing counted again
    assert items(tmp_path, Dimension.preferences) == {first: ("Active", 3, False)}


def test_a_unit_older_than_the_pool_window_no_longer_forms_a_theme(tmp_path: Path) -> None:
    identity(tmp_path, "Name is Test Person")
    nightly_unit(tmp_path, "raft", "2026-03-01", ["consensus"])
    run(tmp_path, "2026-03-01")
    nightly_unit(tmp_path, "paxos", "2026-11-12", ["consensus"])
    run(tmp_path, "2026-11-12")
    assert texts(tmp_path, Dimension.preferences) == set()
