"""Configuration: a TOML file, `HYLO_MEMORY_*` variables, and the SDK's own OpenAI variables."""

from __future__ import annotations

import os
import tomllib
import zoneinfo
from contextvars import ContextVar
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AliasChoices,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
    TomlConfigSettingsSource,
)

from hylo_memory.errors import ConfigError, validation_line
from hylo_memory.extractors.settings import LLMSettings

DEFAULT_CONFIG = Path("~/.config/hylo-memory/config.toml")

# Every setting has a ceiling as well as a floor: a value past it is a typo, and would
# otherwise end in a date past the calendar's end or a run that never stops.
DAYS = 36_500  # a hundred years: any window, from any `--today`, stays inside the calendar
PATH_CHARS = 1024


class Config(BaseSettings, LLMSettings):
    """Every setting, with its default. Precedence: command line, environment, file."""

    model_config = SettingsConfigDict(env_prefix="HYLO_MEMORY_", extra="forbid", populate_by_name=True)

    # The vault
    vault: str | None = Field(None, max_length=PATH_CHARS)  # makes --vault optional; not in the vault's own file
    memory_dir: str = Field("_memory", max_length=PATH_CHARS)
    shorts_paths: list[Annotated[str, Field(max_length=PATH_CHARS)]] = Field(["_shorts"], max_length=100)
    knowledge_paths: list[Annotated[str, Field(max_length=PATH_CHARS)]] = Field(["_knowledge"], max_length=100)
    extra_scan_paths: list[Annotated[str, Field(max_length=PATH_CHARS)]] = Field([], max_length=100)
    timezone: str | None = Field(None, max_length=100)  # None: the machine's local time zone
    max_note_bytes: int = Field(1_000_000, ge=1, le=100_000_000)
    # The run
    first_run_days: int = Field(90, ge=1, le=DAYS)
    incremental_days: int = Field(2, ge=1, le=DAYS)
    per_run_cap: int | None = Field(None, ge=1, le=100_000_000)  # sources extracted per run; the rest wait
    similarity_threshold: float = Field(90.0, gt=0, le=100)
    pool_days: int = Field(180, ge=1, le=DAYS)  # how long an external unit waits for others of its theme
    archive_keep: int = Field(10, ge=0, le=10_000)
    lock_timeout: float = Field(600.0, ge=0, le=7 * 86_400)
    schedule: str = Field("0 3 * * *", max_length=200)
    # The extractor (the rest of its settings come from LLMSettings); the SDK's own variables count too
    extractor: Literal["auto", "offline", "openai"] = "auto"
    api_key: SecretStr | None = Field(
        None, validation_alias=AliasChoices("api_key", "HYLO_MEMORY_API_KEY", "OPENAI_API_KEY"))
    base_url: str | None = Field(
        None, max_length=PATH_CHARS,
        validation_alias=AliasChoices("base_url", "HYLO_MEMORY_BASE_URL", "OPENAI_BASE_URL"))

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                zoneinfo.ZoneInfo(value)
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                raise ValueError(f"unknown time zone {value!r}") from None
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

    @property
    def uses_llm(self) -> bool:
        """The LLM is used when chosen, or by default when a key or server is configured."""
        if self.extractor == "auto":
            return self.api_key is not None or self.base_url is not None
        return self.extractor == "openai"

    def llm(self) -> LLMSettings | None:
        """The LLM extractor's settings when the LLM is used, else None."""
        return self if self.uses_llm else None

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Command-line options (init), then the environment, then the TOML file.
        return (init_settings, env_settings, TomlConfigSettingsSource(settings_cls, _config_file.get()))


def is_whole_vault(path: str) -> bool:
    """Whether a scan path is the vault itself (`"."`, `"./"`): read but its memory, knowledge and hidden folders."""
    return path.strip() != "" and not Path(path.strip()).parts


_config_file: ContextVar[Path | None] = ContextVar("config_file", default=None)


def load_config(path: str | Path | None = None, **overrides: Any) -> Config:
    """The configuration from `path` (or the default file, if present), env and `overrides`."""
    file = Path(os.path.expanduser(str(path or DEFAULT_CONFIG)))
    if path is not None and not file.is_file():
        raise ConfigError(f"{file}: config file not found")
    token = _config_file.set(file if file.is_file() else None)
    try:
        return Config(**{k: v for k, v in overrides.items() if v is not None})
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{file}: not valid TOML: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{file}: cannot read: {exc}") from None
    except SettingsError as exc:  # an environment variable that is not valid JSON for a list
        raise ConfigError(f"environment: {exc} (a list is JSON, e.g. '[\"journal\"]')") from None
    except ValidationError as exc:
        origin = f"{file}, " if file.is_file() else ""
        raise ConfigError(f"configuration ({origin}HYLO_MEMORY_*): {validation_line(exc, 'config')}") from None
    finally:
        _config_file.reset(token)
