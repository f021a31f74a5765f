"""Secrets in a note's text, replaced by `[secret]` before any reader sees it (docs/spec.md §1 "Secrets").

Pure: text in, text out. What is replaced: the value after a password's or a key's name (`password = …`,
`密码：…`, `aws_secret_access_key = …`, `Authorization: Bearer …`), the name kept so the reader sees a
secret was there; tokens whose shape gives them away (OpenAI `sk-…`, GitHub `ghp_…`/`github_pat_…`, AWS
`AKIA…`, Slack `xox?-…`, JWTs); a private key's block, whole; a card number that passes the Luhn check.
Everything else comes through byte for byte.

Bounded: each pattern is one pass with no nested quantifier, and a private key with no end line is
replaced to the end of the text, so a text of many unclosed `-----BEGIN … PRIVATE KEY-----` costs
linear time, not quadratic.
"""

from __future__ import annotations

import re

SECRET = "[secret]"

# The name of a secret, then `=` or `:` (not `==`: code comparing a password is no secret); its value may
# wait on the next line ("Wifi password:" then the password). `pwd` only with `=`: "pwd: /home/me" is a path.
_NAMES = (r"password|passwd|passphrase|passcode|aws_secret_access_key|aws_session_token|api[_-]?key|secret[_-]key"
          r"|client[_-]secret|access[_-]token|auth[_-]token|refresh[_-]token|private[_-]key")
_SEPARATOR = r"""["']?[ \t]*(?:[:：]|=(?!=))"""
_LABEL = (rf"(?<![A-Za-z0-9])(?:(?i:{_NAMES}){_SEPARATOR}|(?i:pwd)[ \t]*=(?!=)|(?:密码|口令){_SEPARATOR}"
          r"|(?i:authorization)[\"']?[ \t]*[:=][ \t]*(?i:bearer|token|basic)[ \t])"  # one blank: the tail takes more
          r"[ \t\u3000]*(?:\n[ \t]*)?")
# "my password is hunter22": only a value of six characters or more with a digit, so "my password is too weak"
# and "the password is 12 characters long" stay.
_SAID = (r"(?<![A-Za-z0-9])(?i:password|passwd|passcode)[ \t]+(?i:is|was)[ \t]+(?=[!-~]{6})(?=[!-~]*?[0-9])"
         r"|(?:密码|口令)[ \t]*(?:是|为|為)[ \t]*(?=[!-~]{4})")
# A quoted value loses its inside, quotes kept; a bare one is a run of printable ASCII, so "密码：忘了" stays.
_VALUE = r"""(?:"(?P<dq>[^"\n]{1,500})"|'(?P<sq>[^'\n]{1,500})'|(?P<bare>[!-~]+))"""

_TOKENS = "|".join((
    # OpenAI (sk-proj-…), Anthropic (sk-ant-…): a random run of 16 in it, so "sk-learn-is-a-great-library" stays
    r"(?<![A-Za-z0-9_-])sk-(?=[A-Za-z0-9_-]*?[A-Za-z0-9]{16})[A-Za-z0-9_-]{20,}",
    r"(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}",  # Stripe
    r"(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{20,}",  # GitHub
    r"(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{20,}",
    r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])",  # an AWS access key id
    r"(?<![A-Za-z0-9])xox[baprs]-[A-Za-z0-9-]{10,}",  # Slack
    r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*",  # a JWT
    r"(?<![A-Za-z0-9])Bearer[ \t]+[A-Za-z0-9._~+/-]{20,}=*",  # a bearer token without its header
))
# 13–19 digits, whole or in groups of 3–6 (4-4-4-4, Amex's 4-6-5), in no longer number, date, version or phone.
# ASCII classes: a Chinese character is `\w`, and "卡号4111…" is a card number.
# The first digit comes before the look behind, so that the pattern's search skips to digits (three times faster).
_CARD = (r"[0-9](?<![A-Za-z0-9_+./-][0-9])(?:[0-9]{12,18}|[0-9]{2,5}(?:[ -][0-9]{3,6}){2,7})"
         r"(?![A-Za-z0-9_/]|[.,-][0-9])")

_LABELLED = re.compile(rf"(?P<label>{_LABEL}|{_SAID}){_VALUE}")
_TOKEN = re.compile(_TOKENS)
_CARD_RUN = re.compile(_CARD)
_KEY_BEGIN = re.compile(r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_KEY_END = re.compile(r"-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_CARD_FIRST = re.compile(r"[3-6]|2[2-7]")  # Amex, Visa, Mastercard, Discover, UnionPay…: no date (19…, 20…)
# After a bare value, the sentence's or the quotation's, not the secret's: "(password: hunter2)." keeps its `).`.
_SENTENCE_END = ".,;)'\"`"
# Words without which a pattern cannot match, looked for first (in the lowered text, `-` read as `_`, for the
# names): most notes hold none, and a plain `in` costs a hundredth of a pattern's pass.
_NAME_WORDS = ("pass", "pwd", "api_key", "apikey", "secret_key", "client_secret", "access_token", "auth_token",
               "refresh_token", "private_key", "aws_s", "authorization", "密码", "口令")
_TOKEN_WORDS = ("sk-", "sk_", "rk_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "AKIA", "ASIA", "xox",
                "eyJ", "Bearer")


def redact(text: str) -> str:
    """`text` with every secret it holds replaced by `[secret]`, and nothing else changed."""
    text = _without_keys(text)
    folded = text.lower().replace("-", "_")
    if any(word in folded for word in _NAME_WORDS):
        text = _LABELLED.sub(_labelled, text)
    if any(word in text for word in _TOKEN_WORDS):
        text = _TOKEN.sub(SECRET, text)
    return _CARD_RUN.sub(lambda found: _card(found[0]), text)


def _without_keys(text: str) -> str:
    """Each private key block, from its BEGIN line to its END line, as `[secret]`; one never ended, to the end."""
    if "PRIVATE KEY" not in text:
        return text
    parts, at = [], 0
    while begin := _KEY_BEGIN.search(text, at):
        end = _KEY_END.search(text, begin.end())
        parts += [text[at:begin.start()], SECRET]
        at = end.end() if end else len(text)
    return "".join(parts) + text[at:]


def _labelled(found: re.Match[str]) -> str:
    """A secret's name kept, its value `[secret]` (inside its quotes, before the sentence's full stop)."""
    label = found["label"]
    if found["dq"] is not None:
        return f'{label}"{SECRET}"'
    if found["sq"] is not None:
        return f"{label}'{SECRET}'"
    value = found["bare"]
    if value == SECRET:
        return found[0]  # already redacted: redact(redact(x)) == redact(x)
    kept = value.rstrip(_SENTENCE_END) or value
    return f"{label}{SECRET}{value[len(kept):]}"


def _card(number: str) -> str:
    """The number as `[secret]` when it, or its first groups, is a card number; else as written."""
    cuts = [len(number)] + [i for i in range(len(number) - 1, 0, -1) if number[i] in " -"]
    for cut in cuts:  # "4111 1111 1111 1111 2026": the card, then a year
        digits = number[:cut].replace(" ", "").replace("-", "")
        if 13 <= len(digits) <= 19 and _CARD_FIRST.match(digits) and luhn(digits):
            return SECRET + number[cut:]
    return number


def luhn(digits: str) -> bool:
    """Whether a string of digits passes the Luhn check, as every card number does."""
    total = 0
    for i, c in enumerate(reversed(digits)):
        d = int(c) * (2 if i % 2 else 1)
        total += d - 9 if d > 9 else d
    return total % 10 == 0
