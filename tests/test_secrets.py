"""Secrets never leave the machine (docs/spec.md §1 "Secrets"): passwords, keys, tokens, private keys and card
numbers in a note reach no model, no assistant and no ledger — `[secret]` does; every other byte comes through."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import time
from pathlib import Path

import pytest
from batch_helpers import handler, vault_with
from batch_helpers import refresh as batch_refresh
from cli_helpers import hylo
from vault_helpers import short, unit, write_file

from hylo_memory.domain.sources import Source
from hylo_memory.pipeline.cli.group import main
from hylo_memory.pipeline.notes.hylo_daily import render_daily
from hylo_memory.pipeline.notes.secrets import SECRET, luhn, redact
from hylo_memory.pipeline.run.window import Window
from hylo_memory.pipeline.vaults.folder import FolderVault
from hylo_memory.testing import FakeOpenAI

TODAY = "2026-11-30"
WIDE = Window(mode="first", start=dt.date(2026, 1, 1), today=dt.date.fromisoformat(TODAY))
# Built from pieces, so that no scanner takes this file for a leak.
OPENAI = "sk-" + "T3BlbkFJ" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
PROJECT = "sk-proj-" + "Zx9_Yw8-Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8Ba7"
GITHUB = "ghp_" + "16C7e42F292c6912E7710c838347Ae178B4a"
OAUTH = "gho_" + "16C7e42F292c6912E7710c838347Ae178B4a"
FINE_GRAINED = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF"
AWS_ID = "AKIA" + "IOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"
SLACK = "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0." + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
PEM = ("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM\n+q7Ug8pYk2zVq/XwG1s=\n"
       "-----END RSA PRIVATE KEY-----")
PASSWORD = "hunter2-Zebra-77"


@pytest.mark.parametrize(("text", "redacted"), [
    ("password = hunter2", "password = [secret]"),
    ("Wifi at home: Password: correct-horse-42 (changed in May)", "Wifi at home: Password: [secret] (changed in May)"),
    ("db pwd=s3cr3t!x", "db pwd=[secret]"),
    ("邮箱密码：Abc123456，别再忘了", "邮箱密码：[secret]，别再忘了"),
    ("wifi 密码:88886666", "wifi 密码:[secret]"),
    ('{"password": "hunter 2 with spaces"}', '{"password": "[secret]"}'),
    ("Router password:\nadmin-9F3k", "Router password:\n[secret]"),
    ("my password is Summer2024! do not tell", "my password is [secret] do not tell"),
    (f"OpenAI key {OPENAI} for the bot.", "OpenAI key [secret] for the bot."),
    (f"project key: {PROJECT}", "project key: [secret]"),
    (f"token {GITHUB} expires Friday", "token [secret] expires Friday"),
    (f"{OAUTH}", "[secret]"),
    (f"CI uses {FINE_GRAINED}.", "CI uses [secret]."),
    (f"AWS id {AWS_ID} in us-east-1", "AWS id [secret] in us-east-1"),
    (f"aws_secret_access_key = {AWS_SECRET}", "aws_secret_access_key = [secret]"),
    (f"slack bot {SLACK}", "slack bot [secret]"),
    (f"session {JWT} from the browser", "session [secret] from the browser"),
    ("curl -H 'Authorization: Bearer abc.DEF-123_xyz' https", "curl -H 'Authorization: Bearer [secret]' https"),
    (f"deploy key:\n{PEM}\nkeep it safe", "deploy key:\n[secret]\nkeep it safe"),
    ("card 4111 1111 1111 1111, exp 08/29", "card [secret], exp 08/29"),
    ("Amex 3782-822463-10005 for travel", "Amex [secret] for travel"),
    ("卡号5555555555554444，别丢", "卡号[secret]，别丢"),
    ("test card 4242424242424242 then 2026", "test card [secret] then 2026"),
])
def test_a_secret_is_replaced_and_the_rest_of_the_line_kept(text: str, redacted: str) -> None:
    assert redact(text) == redacted


ORDINARY = [
    "I forgot my password again",
    "Changed the wifi password yesterday; passwords should be long.",
    "我又忘了密码，密码太多了记不住。",
    "Meeting on 2026-11-30 at 14:30 in room 4B, then lunch at 12:00.",
    "Call me at +1 415 555 0132 or +86 138 0013 8000, or 0086 138 0013 8000.",
    "Order 4111 1111 1111 1112 shipped; order no. 12345678901234 too.",
    "ISBN 978-0-13-468599-1 and 9780134685991 are the same book.",
    "今天读了《代码大全》，ISBN 9787121022982，很好看。",
    "Upgraded to Python 3.11.4, numpy 1.26.0 and release 2.0.0-rc.1+build.5.",
    "sk-learn is what people call scikit-learn, see https://scikit-learn.org/stable/",
    "The API key rotation is on Friday; the key to happiness is low expectations.",
    "if password == confirm: save(user)",
    "Secret: I like pineapple pizza. Token: the subway token costs $2.90.",
    "Tokens used: 1,234 prompt and 567 completion, 20261130101502 in the log.",
    "我的手机号是13800138000，生日是1990年5月1日。",
    "Bearer of bad news again, sigh.",
    "pwd: /home/maya/projects, then ssh-keygen -t ed25519 -C maya@example.com",
    "Spent ¥1,299.00 on 12/25; invoice INV-2026-000123; account ending 4242.",
    "Coordinates 31.2304, 121.4737; population 1400000000000 give or take.",
    "my password is too weak and the password is 12 characters long.",
    "密码：忘了，明天去重置。",
    "The BEGIN and END of a PRIVATE KEY block are lines of dashes.",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_comes_through_byte_for_byte(text: str) -> None:
    assert redact(text) == text


def test_redacting_twice_changes_nothing_more() -> None:
    text = f"password = {PASSWORD}\nkey {OPENAI}\n{PEM}\ncard 4111 1111 1111 1111"
    assert redact(redact(text)) == redact(text)


def test_a_private_key_never_ended_is_replaced_to_the_end() -> None:
    assert redact("before\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk") == "before\n[secret]"


def test_the_luhn_check() -> None:
    assert luhn("4111111111111111") and luhn("378282246310005") and not luhn("4111111111111112")


@pytest.mark.parametrize("huge", [
    "Authorization: Bearer" + " " * 200_000,
    "password:" + " " * 200_000,
    "password is " + "a" * 200_000,
    "-----BEGIN RSA PRIVATE KEY-----" * 20_000,
    "1" * 500_000,
    "1234 " * 100_000,
    "sk-" + "a-" * 200_000,
    " sk-a-a-a-a" * 50_000,
    "eyJ" + "a" * 300_000 + ".",
    '"password": "' * 50_000,
])
def test_huge_inputs_take_linear_time(huge: str) -> None:
    # Quadratic backtracking over these would take minutes; a linear pass takes well under a second.
    started = time.perf_counter()
    redact(huge)
    assert time.perf_counter() - started < 3


# Where a note becomes a source: every backend and every kind of source.


def read(vault: Path) -> list[Source]:
    return [s for s in FolderVault(vault, [], "_memory", 1_000_000).sources(WIDE) if isinstance(s, Source)]


def test_a_short_notes_source_text_is_redacted_and_its_hash_is_the_files(tmp_path: Path) -> None:
    path = short(tmp_path, "2026-11-20", f"**Wifi** password = {PASSWORD}\n\nI live in Lisbon.", slug="wifi")
    [source] = read(tmp_path)
    assert source.text == "Wifi password = [secret]\n\nI live in Lisbon."
    assert source.content_hash == hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_private_key_in_a_notes_markdown_is_one_secret_in_its_source(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-20", f"Deploy key:\n\n{PEM}\n\n- keep it *safe*", slug="key")
    [source] = read(tmp_path)
    assert source.text == "Deploy key:\n\n[secret]\n\n- keep it safe"


def test_a_hylo_daily_entry_is_redacted(tmp_path: Path) -> None:
    write_file(tmp_path, "_shorts/2026-11-28.md", render_daily(
        dt.date(2026, 11, 28),
        [("08:05:10", f"New key {OPENAI} for the bot."), ("12:30:00", "I love long walks.")]))
    texts = [s.text.strip() for s in read(tmp_path)]
    assert texts == ["New key [secret] for the bot.", "I love long walks."]


def test_a_units_title_is_redacted_and_a_tag_holding_a_secret_left_out(tmp_path: Path) -> None:
    unit(tmp_path, "bot", f"The bot reads {GITHUB}.", "2026-11-20", title=f"Bot token {GITHUB}",
         tags=["bots", GITHUB, f"password={PASSWORD}", "api-keys"])
    [source] = read(tmp_path)
    assert (source.title, source.tags, source.text) == (
        "Bot token [secret]", ["bots", "api-keys"], "The bot reads [secret].")


# End to end: what an assistant, a model and a provider's batch are sent, and what the ledger keeps.

SECRETS = (PASSWORD, OPENAI)


def secret_vault(root: Path) -> Path:
    short(root, "2026-11-25", f"Home wifi password = {PASSWORD}\nI live in Lisbon.", slug="wifi")
    short(root, "2026-11-26", f"I set up the bot with key {OPENAI} today. I love long walks.", slug="bot")
    return root


def assert_nowhere(data: bytes, where: str) -> None:
    for secret in SECRETS:
        assert secret.encode() not in data, f"{secret} in {where}"


def assert_not_in_memory_folder(vault: Path) -> None:
    """Neither the ledger (and its journal) nor the run summaries nor the memory files hold a secret."""
    files = [p for p in (vault / "_memory").rglob("*") if p.is_file()]
    assert any(p.name.startswith("ledger.db") for p in files)
    for path in files:
        assert_nowhere(path.read_bytes(), str(path))


def test_pending_hands_an_assistant_secret_for_each_secret(tmp_path: Path) -> None:
    vault = secret_vault(tmp_path / "vault")
    done = hylo("pending", "--vault", vault, "--today", TODAY, "--json")
    assert done.exit_code == 0, done.stderr
    batch = json.loads(done.stdout)
    assert len(batch["sources"]) == 2
    assert "wifi password = [secret]" in batch["request"] and "with key [secret] today" in batch["request"]
    assert_nowhere(done.stdout.encode(), "pending's output")
    assert_not_in_memory_folder(vault)  # the lease keeps the request it handed out


def test_a_run_sends_the_model_no_secret_and_the_ledger_keeps_none(llm: FakeOpenAI, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    vault = secret_vault(tmp_path / "vault")
    code = main(["refresh", "--vault", str(vault), "--today", TODAY, "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0 and summary["status"] == "ok" and llm.chat_requests
    assert any(SECRET in r.prompt for r in llm.chat_requests)
    for request in llm.requests:
        assert_nowhere(request.raw_body, f"{request.method} {request.path}")
    assert_not_in_memory_folder(vault)


def test_a_provider_batch_uploads_no_secret(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.handler = handler
    vault = vault_with(tmp_path, {"wifi": f"Home wifi password = {PASSWORD}", "bot": f"My bot key is {OPENAI}."})
    assert batch_refresh(vault, fake_openai, "--batch")["status"] == "submitted"
    uploads = [r for r in fake_openai.requests if r.path.startswith("/v1/files")]
    assert uploads and any(SECRET.encode() in r.raw_body for r in uploads)
    for request in fake_openai.requests:
        assert_nowhere(request.raw_body, f"{request.method} {request.path}")
    assert_not_in_memory_folder(vault)
