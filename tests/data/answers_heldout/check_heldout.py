"""Check the held-out recall set: every answer is an item line's text, and print its counts.

Run: .venv/bin/python tests/data/answers_heldout/check_heldout.py
"""

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).parent
FILES = ("_identity.md", "_preferences.md", "_goals.md", "_beliefs.md", "_people.md", "_state.md")
ITEM = re.compile(r"^- (.+?) `last:\d{4}-\d{2}-\d{2} seen:\d+( pinned)?`$")
HAN = re.compile(r"[\u4e00-\u9fff]")
LATIN = re.compile(r"[A-Za-z]")


def is_chinese(text: str) -> bool:
    # Mixed lines ("方老师 — Mimi 中文学校的老师") count as the language with more characters.
    return len(HAN.findall(text)) > len(LATIN.findall(text)) / 3


def items() -> list[str]:
    found: list[str] = []
    for name in FILES:
        for line in (HERE / name).read_text(encoding="utf-8").splitlines():
            if line.startswith("- "):
                match = ITEM.match(line)
                if match is None:
                    sys.exit(f"{name}: malformed item line: {line}")
                found.append(match.group(1))
    return found


def main() -> None:
    texts = items()
    known = set(texts)
    assert len(known) == len(texts), "an item text appears twice"
    doc = json.loads((HERE / "questions.json").read_text(encoding="utf-8"))
    questions = doc["questions"]
    missing = [(q["question"], a) for q in questions for a in q["answers"] if a not in known]
    for question, answer in missing:
        print(f"not an item: {answer!r} (for {question!r})")
    answerable = [q for q in questions if q["answers"]]
    zh_questions = [q for q in questions if is_chinese(q["question"])]
    zh_items = [t for t in texts if is_chinese(t)]
    cross = [q for q in answerable if any(is_chinese(a) != is_chinese(q["question"]) for a in q["answers"])]
    print(f"items: {len(texts)} ({len(texts) - len(zh_items)} English, {len(zh_items)} Chinese)")
    print(f"questions: {len(questions)} ({len(answerable)} answerable, {len(questions) - len(answerable)} unanswerable)")
    print(f"question language: {len(questions) - len(zh_questions)} English, {len(zh_questions)} Chinese")
    zh_ans = sum(1 for q in answerable if is_chinese(q["question"]))
    zh_none = len(zh_questions) - zh_ans
    print(f"  answerable: {len(answerable) - zh_ans} English, {zh_ans} Chinese; "
          f"unanswerable: {len(questions) - len(answerable) - zh_none} English, {zh_none} Chinese")
    print(f"answerable across languages (an answer in the other language): {len(cross)}")
    print(f"items used as answers: {len({a for q in questions for a in q['answers']})}")
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
