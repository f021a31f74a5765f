"""A door's words for the steps its texts advise (pipeline/naming.py; docs/development.md: the names of commands and
tools live in the doors): each names only what its door has, and the same text says each door's words."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from vault_helpers import memory_file, opened

from hylo_memory.decay import Dimension
from hylo_memory.decay.recall.ranking import MIN_BUDGET
from hylo_memory.pipeline.cli.group import COMMANDS
from hylo_memory.pipeline.cli.options import NAMING as COMMAND_LINE
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.mcp.calls import NAMING as SERVER
from hylo_memory.pipeline.mcp.tools import TOOLS
from hylo_memory.pipeline.naming import Naming, Step
from hylo_memory.pipeline.operations.serving.context import build_context
from hylo_memory.pipeline.operations.serving.recall import RecallResult
from hylo_memory.pipeline.version import PROG

TODAY = dt.date(2026, 11, 30)


@pytest.mark.parametrize("naming", [COMMAND_LINE, SERVER], ids=["command line", "mcp"])
def test_every_step_is_said_as_a_real_command_of_the_program(naming: Naming) -> None:
    for step in Step:
        program, command = naming.commands[step].split()
        assert (program, command) == (PROG, step.name.lower()) and command in COMMANDS, step


def test_every_tool_the_server_says_is_one_it_serves() -> None:
    assert set(SERVER.tools.values()) <= set(TOOLS)
    assert COMMAND_LINE.tools == {}  # the command line says its commands


def test_recall_with_no_match_names_the_server_s_tools_where_the_command_line_names_its_commands() -> None:
    nothing = RecallResult(query="xyzzy", limit=10, ranking="bm25+embeddings", items=[])
    assert nothing.to_text(COMMAND_LINE).endswith("try `hylo-memory context` for the whole memory, or remember it "
                                                  "with `hylo-memory remember`.\n")
    assert nothing.to_text(SERVER).endswith("try the `context` tool for the whole memory, or remember it with the "
                                            "`remember` tool.\n")
    assert nothing.to_json() == RecallResult(query="xyzzy", limit=10, ranking="bm25+embeddings", items=[]).to_json()


def test_context_s_left_out_note_says_the_status_tool_to_the_server_and_the_status_command_on_the_command_line(
        tmp_path: Path) -> None:
    for dimension in Dimension:  # every file hand-broken: their lines, long, give way to one short line
        memory_file(tmp_path, dimension, "## Active\n- Ship it `last:2026-13-45 seen:1`\n")
    said = {name: build_context(opened(tmp_path, Config()), TODAY, naming, MIN_BUDGET).to_text()
            for name, naming in (("command line", COMMAND_LINE), ("mcp", SERVER))}
    count = len(Dimension)
    assert f"_Left out: {count} memory file(s) cannot be read; `hylo-memory status` names them._" in said["command line"]
    assert f"_Left out: {count} memory file(s) cannot be read; the `status` tool names them._" in said["mcp"]


def test_a_step_the_server_has_no_tool_for_is_said_as_the_command_line_s_command() -> None:
    assert SERVER.say(Step.INDEX) == COMMAND_LINE.say(Step.INDEX) == "`hylo-memory index`"
    assert SERVER.say(Step.STATUS) == "the `status` tool" and COMMAND_LINE.say(Step.STATUS) == "`hylo-memory status`"


def test_a_step_s_options_are_the_command_s_flags_and_the_tool_s_arguments() -> None:
    text = "Doesn't like cold brew"  # quoted as each door reads it: a shell's word, a JSON string
    assert COMMAND_LINE.say(Step.FORGET, text=text, dimension="preferences") == \
        f"`{PROG} forget 'Doesn'\"'\"'t like cold brew' --dimension preferences`"
    assert SERVER.say(Step.FORGET, text=text, dimension="preferences") == \
        'the `forget` tool with {"text": "Doesn\'t like cold brew", "dimension": "preferences"}'


def test_the_values_said_for_a_tool_are_its_own_arguments() -> None:
    import inspect

    from hylo_memory.pipeline.mcp.tools import Tools

    assert {"text", "dimension"} <= set(inspect.signature(Tools.forget).parameters)


def test_the_command_line_s_answer_to_a_batch_names_its_lease_and_every_option_apply_requires() -> None:
    import click

    from hylo_memory.pipeline.cli.group import cli

    words = COMMAND_LINE.answer.strip("`").split()
    assert words[:2] == [PROG, "apply"] and "--lease" in words
    apply = cli.get_command(click.Context(cli), "apply")
    assert apply is not None
    required = {p.opts[0] for p in apply.params if isinstance(p, click.Option) and p.required}
    assert required and required <= set(words)  # `apply --lease` alone is refused: the words name the rest


def test_recall_on_a_memory_with_no_item_yet_says_to_read_the_notes_first_in_each_door_s_words() -> None:
    nothing = RecallResult(query="Kyoto", limit=10, ranking="bm25", items=[], empty=True)
    assert nothing.to_text(COMMAND_LINE) == ("No item matches 'Kyoto': the memory holds no item yet. Read your notes "
                                             f"first with `{PROG} refresh`, or keep a fact with `{PROG} remember`.\n")
    assert nothing.to_text(SERVER) == ("No item matches 'Kyoto': the memory holds no item yet. Read your notes first "
                                       "with the `refresh` tool, or keep a fact with the `remember` tool.\n")
    assert "empty" not in nothing.to_json()  # the JSON says it by its empty items
