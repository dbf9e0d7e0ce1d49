"""Configuration: one TOML file plus the environment, read once and validated up front.

Where the file comes from, in order: ``--config PATH``, ``$PHPBOTSCOUT_CONFIG``,
``./phpbotscout.toml``, else the embedded default (this checkout indexes itself, no tokens,
no network). Every key is declared once in ``KEYS``; anything else in the file is an error
that names the key. Secrets are read only from the environment and never printed.
"""

from __future__ import annotations

import base64
import io
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from dotenv import dotenv_values

from bot.errors import ConfigError, ConfigFileError
from bot.forge.origin import plain_text_allowed, redact_urls
from bot.forge.predicate import named_by

PROVIDERS = ("anthropic", "claude-local", "none")
MARKDOWN_SCOPES = ("site", "all")
RETRIEVAL_MODES = ("bm25", "hybrid")
DEFAULT_MODEL = "claude-haiku-4-5"
CONFIG_FILE_NAME = "phpbotscout.toml"

# The environment variables a secret may come from; a secret in the file is refused.
SECRET_ENV = {
    "discord.token": "DISCORD_TOKEN",
    "gitlab.token": "GITLAB_TOKEN",
    "answer.api_key": "ANTHROPIC_API_KEY",
    "webhook.secret": "PHPBOTSCOUT_WEBHOOK_SECRET",
}


class Secret:
    """A string that never shows itself in a repr, a log line or a traceback."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """Return the secret itself, for the one place that must send it."""
        return self._value

    def __repr__(self) -> str:
        return "Secret('**********')"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


@dataclass(frozen=True, slots=True)
class RateLimit:
    """At most ``count`` requests per ``per_seconds`` for one user."""

    count: int
    per_seconds: float


@dataclass(frozen=True, slots=True)
class Secrets:
    """Secrets from the environment; each is ``None`` when unset or empty."""

    discord_token: Secret | None = None
    gitlab_token: Secret | None = None
    anthropic_api_key: Secret | None = None
    webhook_secret: Secret | None = None


@dataclass(frozen=True, slots=True)
class Config:
    """Every setting phpbotscout reads, validated, with relative paths already resolved."""

    origin: str
    embedded: bool
    index_path: Path
    clones_dir: Path
    feed_url: str | None
    ssh_key: Path | None
    ssh_known_hosts: Path | None
    refresh_interval: float
    markdown_scope: str
    # How long a docs site seen answering is trusted without asking it again (0: every run).
    site_check_interval: float
    gitlab_api_url: str
    gitlab_group: str | None
    gitlab_siteless_subgroups: tuple[str, ...]
    exclude: tuple[str, ...]
    local_sources: tuple[Path, ...]
    source_intervals: Mapping[str, float]
    retrieval_mode: str
    answer_provider: str
    answer_model: str
    answer_timeout: float
    discord_guilds: tuple[int, ...]
    discord_rate_limit: RateLimit
    discord_api_url: str
    discord_max_concurrent_answers: int
    webhook_listen: tuple[str, int] | None
    secrets: Secrets = field(default_factory=Secrets)
    # The Anthropic SDK's own ANTHROPIC_BASE_URL, read here so the engine never reads the
    # environment itself; None means the SDK's default address.
    anthropic_base_url: str | None = None
    # The PATH the `claude` binary is looked up on (the claude-local provider).
    search_path: str | None = None
    # The environment a provider's subprocess runs with: ours without phpbotscout's own
    # secrets, which are meant for Discord, GitLab and the webhook, not for another program.
    subprocess_env: Mapping[str, str] = field(default_factory=dict, repr=False)

    def interval_for(self, source: str) -> float:
        """Return the refresh interval of one source, in seconds.

        A key names the source as a name does anywhere else: letter case aside, unless one is
        spelled exactly as the source is. Of keys apart by letter case alone and none exact,
        the shortest interval holds: refreshing sooner than asked loses nothing.
        """
        keys = named_by(source, self.source_intervals)
        return min((self.source_intervals[k] for k in keys), default=self.refresh_interval)


# ---------------------------------------------------------------------------------------------
# Value parsers: each takes the raw TOML value and the key, returns the typed value or raises.


def _fail(key: str, value: object, allowed: str) -> ConfigError:
    return ConfigError(key, value, allowed)


_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)\s*([smhd])")
# A number of seconds written in quotes, as every other duration is: "3600", or the "60" of a
# rate limit's "3/60".
_BARE_SECONDS = re.compile(r"[0-9]+(?:\.[0-9]+)?")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
# No setting needs longer than a year; beyond it a value is a slip (or TOML's inf), and an
# infinite one would also reach `index status --json` as Infinity, which is not JSON.
MAX_DURATION = 365 * 86400.0


def parse_duration(key: str, value: object) -> float:
    """Seconds from ``90``, ``"90"``, ``"90s"``, ``"30m"``, ``"6h"``, ``"1d"`` or ``"1h30m"``."""
    allowed = "a positive number of seconds or a duration such as '90s', '30m', '6h', '1d'"
    seconds = _seconds(key, value, allowed)
    if seconds == 0:
        raise _fail(key, value, allowed)
    return seconds


def _duration_or_zero(key: str, value: object) -> float:
    """A duration, or zero for "every time": what the site check interval accepts."""
    allowed = "0 (ask every run) or a duration such as '90s', '30m', '6h', '1d'"
    return _seconds(key, value, allowed)


def _seconds(key: str, value: object, allowed: str) -> float:
    """A number of seconds or a duration with units, as seconds; never negative."""
    if isinstance(value, bool):
        raise _fail(key, value, allowed)
    if isinstance(value, int | float) or (
        isinstance(value, str) and _BARE_SECONDS.fullmatch(value.strip())
    ):
        seconds = float(value)
    elif isinstance(value, str):
        text = value.strip().lower()
        parts = _DURATION_PART.findall(text)
        if not parts or _DURATION_PART.sub("", text).strip():
            raise _fail(key, value, allowed)
        seconds = sum(float(n) * _UNIT_SECONDS[u] for n, u in parts)
    else:
        raise _fail(key, value, allowed)
    if not seconds >= 0:  # negative, or nan
        raise _fail(key, value, allowed)
    if seconds > MAX_DURATION:  # inf too
        raise _fail(key, value, "a duration of at most a year ('365d')")
    return seconds


def _string(key: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _fail(key, value, "a non-empty string")
    return value.strip()


def _choice(*choices: str) -> Callable[[str, object], str]:
    def parse(key: str, value: object) -> str:
        if value not in choices:
            raise _fail(key, value, "one of " + ", ".join(repr(c) for c in choices))
        return str(value)

    return parse


def _url(*schemes: str) -> Callable[[str, object], str]:
    def parse(key: str, value: object) -> str:
        allowed = "an absolute URL with scheme " + " or ".join(schemes)
        if not isinstance(value, str):
            raise _fail(key, value, allowed)
        try:
            parts = urlsplit(value.strip())
            # Reading the port checks it: the HTTP client would otherwise fail on it later.
            _ = parts.port
        except ValueError as exc:  # an unclosed IPv6 bracket, a port out of range or not digits
            raise _fail(key, redact_urls(value), f"{allowed} ({exc})") from None
        if parts.scheme not in schemes or not parts.hostname:
            # The message is printed: a password in the address must not be.
            raise _fail(key, redact_urls(value), allowed)
        return value.strip().rstrip("/")

    return parse


def _header_url(secret: str) -> Callable[[str, object], str]:
    """An http(s) URL that ``secret`` is sent to in a header, so without a user or password."""
    check = _url("https", "http")

    def parse(key: str, value: object) -> str:
        url = check(key, value)
        if "@" in urlsplit(url).netloc:
            # The secret goes in a header of its own, which the HTTP clients do not combine with
            # an address's user and password (Discord's refuses, Anthropic's cannot connect,
            # GitLab's sends the password beside the token): refused here, not at the first
            # request.
            raise ConfigError(
                key,
                redact_urls(url),
                f"an address without a user name or password: {secret} is sent to it in a "
                "header of its own; remove the 'user:password@' part",
            )
        return url

    return parse


def _token_url(secret: str) -> Callable[[str, object], str]:
    """An http(s) URL that ``secret`` is always sent to: https, or http to a loopback host."""
    check = _header_url(secret)

    def parse(key: str, value: object) -> str:
        url = check(key, value)
        if not plain_text_allowed(url):
            raise _sent_in_plain_text(key, url, secret)
        return url

    return parse


def _sent_in_plain_text(key: str, url: str, secret: str) -> ConfigError:
    # A typo of "http" for "https" would otherwise send the secret across the network in clear
    # text, to anyone on the path; on a loopback address it never leaves the machine.
    return ConfigError(
        key,
        redact_urls(url),
        f"an https URL: {secret} is sent to it, and is never sent in plain text (plain http "
        "is accepted only for a loopback address such as 127.0.0.1)",
    )


def _string_list(key: str, value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise _fail(key, value, "a list of non-empty strings")
    return tuple(v.strip() for v in value)


def _group_path(key: str, value: object) -> str:
    text = _string(key, value).strip("/")
    if not re.fullmatch(r"[A-Za-z0-9_.\-]+(/[A-Za-z0-9_.\-]+)*", text):
        raise _fail(key, value, "a group path such as 'my-org' or 'my-org/platform'")
    return text


def _digits(text: str) -> bool:
    # str.isdigit() is also true of '²' and other digits int() refuses with a ValueError.
    return text.isascii() and text.isdigit()


def _guild_list(key: str, value: object) -> tuple[int, ...]:
    allowed = "a list of Discord guild ids (positive integers, or strings of digits)"
    if not isinstance(value, list):
        raise _fail(key, value, allowed)
    guilds = []
    for item in value:
        if isinstance(item, bool) or not (
            isinstance(item, int) or (isinstance(item, str) and _digits(item))
        ):
            raise _fail(key, value, allowed)
        # A Discord id (a snowflake) is a positive 64-bit number; nothing else names a guild.
        if not 0 < int(item) < 2**64:
            raise _fail(key, value, allowed)
        guilds.append(int(item))
    return tuple(guilds)


def _rate_limit(key: str, value: object) -> RateLimit:
    allowed = (
        "'COUNT/DURATION', such as '3/60s' (three asks a minute per user), DURATION at most a year"
    )
    if not isinstance(value, str) or "/" not in value:
        raise _fail(key, value, allowed)
    count_text, _, per_text = value.partition("/")
    if not _digits(count_text.strip()) or int(count_text) < 1:
        raise _fail(key, value, allowed)
    try:
        per = parse_duration(key, per_text)
    except ConfigError:
        raise _fail(key, value, allowed) from None
    return RateLimit(int(count_text), per)


def _listen(key: str, value: object) -> tuple[str, int]:
    allowed = "'HOST:PORT', such as '127.0.0.1:8088'"
    if not isinstance(value, str) or ":" not in value:
        raise _fail(key, value, allowed)
    host, _, port = value.rpartition(":")
    if not host or not _digits(port) or not 0 < int(port) < 65536:
        raise _fail(key, value, allowed)
    return host.strip("[]"), int(port)


def _intervals(key: str, value: object) -> dict[str, float]:
    if not isinstance(value, dict):
        raise _fail(key, value, "a table of source name = duration")
    return {str(name): parse_duration(f"{key}.{name}", v) for name, v in value.items()}


_RawPath = str  # paths are resolved after parsing, against the file's directory


def _path(key: str, value: object) -> _RawPath:
    return _string(key, value)


def _path_list(key: str, value: object) -> tuple[_RawPath, ...]:
    return _string_list(key, value)


def _answer_bound(key: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 64:
        raise _fail(key, value, "a whole number from 1 to 64")
    return value


def _timeout(key: str, value: object) -> float:
    seconds = parse_duration(key, value)
    if seconds > 600:
        raise _fail(key, value, "a duration of at most 600 seconds")
    return seconds


@dataclass(frozen=True, slots=True)
class Key:
    """One configuration key: its dotted name, parser and default (each commented with why)."""

    name: str
    parse: Callable[[str, object], Any]
    default: Any


KEYS: tuple[Key, ...] = (
    # SQLite file holding the index, questions and votes
    Key("index.path", _path, None),
    # directory for forge clones (created mode 0700)
    Key("index.clones", _path, None),
    # estate feed: JSON list of project paths
    Key("index.feed.url", _url("https", "http"), None),
    # private key: clone over SSH instead of HTTPS
    Key("index.ssh.key", _path, None),
    # pinned host keys for SSH clones
    Key("index.ssh.known_hosts", _path, None),
    # how often a source refreshes
    Key("index.refresh_interval", parse_duration, 6 * 3600.0),
    # forge markdown beyond the site
    Key("index.markdown", _choice(*MARKDOWN_SCOPES), "site"),
    # how long a docs site seen answering is trusted before it is asked again (0: always)
    Key(
        "index.site_check_interval",
        _duration_or_zero,
        24 * 3600.0,
    ),
    # GitLab API
    Key("gitlab.url.api", _header_url("GITLAB_TOKEN"), "https://gitlab.com/api/v4"),
    # the group whose projects may be indexed
    Key("gitlab.group", _group_path, None),
    # subgroups admitted without a docs site (README, code, changelog only)
    Key(
        "gitlab.siteless_subgroups",
        _string_list,
        ("go", "rust", "images"),
    ),
    # project paths never indexed, checked first
    Key("sources.exclude", _string_list, ()),
    # git repositories on disk, or directories of them
    Key("sources.local", _path_list, ()),
    # per-source refresh interval overrides
    Key("sources.refresh_intervals", _intervals, {}),
    # how passages are retrieved
    Key("retrieval.mode", _choice(*RETRIEVAL_MODES), "bm25"),
    # who composes answers
    Key("answer.provider", _choice(*PROVIDERS), None),
    # model used by the provider
    Key("answer.model", _string, DEFAULT_MODEL),
    # longest wait for one model answer
    Key("answer.timeout", _timeout, 60.0),
    # sync commands to these guilds (else globally)
    Key("discord.guilds", _guild_list, ()),
    # asks per user per window
    Key("discord.rate_limit", _rate_limit, RateLimit(3, 60.0)),
    # Discord REST (https, or http to a loopback address)
    Key(
        "discord.api_url",
        _token_url("DISCORD_TOKEN"),
        "https://discord.com/api/v10",
    ),
    # model calls /ask may have in flight at once; later asks queue in order
    Key(
        "discord.max_concurrent_answers",
        _answer_bound,
        4,
    ),
    # HOST:PORT for the push webhook (off when unset)
    Key("webhook.listen", _listen, None),
)
KEYS_BY_NAME = {k.name: k for k in KEYS}
_TABLE_VALUED = {"sources.refresh_intervals"}


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Turn nested TOML tables into dotted keys, stopping at keys whose value is a table."""
    flat: dict[str, Any] = {}
    for name, value in table.items():
        dotted = f"{prefix}{name}"
        if dotted in SECRET_ENV:
            raise ConfigError(
                dotted,
                "<hidden>",
                f"secrets are read only from the environment: set {SECRET_ENV[dotted]}",
            )
        if isinstance(value, dict) and dotted not in _TABLE_VALUED:
            if not value:
                continue
            flat.update(_flatten(value, dotted + "."))
        else:
            flat[dotted] = value
    return flat


# The secrets sent in an HTTP header of their own: GitLab's PRIVATE-TOKEN, Discord's
# Authorization and Anthropic's x-api-key.
_SENT_IN_HEADERS = {"GITLAB_TOKEN", "DISCORD_TOKEN", "ANTHROPIC_API_KEY"}


def _secrets(env: Mapping[str, str]) -> Secrets:
    def get(name: str) -> Secret | None:
        value = env.get(name, "").strip()
        if not _is_text(value):
            raise ConfigError(
                name,
                "<hidden>",
                "UTF-8 text, and it holds bytes that are not: copy the secret again, as text, "
                "from where it was issued (and save an EnvironmentFile or .env file as UTF-8)",
            )
        if name in _SENT_IN_HEADERS and not (value.isascii() and value.isprintable()):
            # Every token and key is issued in printable ASCII. Anything else is a slip of the
            # copy (an accented letter, a typographic quote or dash, an invisible character)
            # that the HTTP clients fail on, or send as bytes no service issued, only at the first
            # request.
            raise ConfigError(
                name,
                "<hidden>",
                "printable ASCII, as every token and key is issued, and it holds a character "
                "that is not (an accented letter, a typographic quote or dash, or an invisible "
                "or control character), which cannot go in the HTTP header it is sent in: copy "
                "the secret again from where it was issued",
            )
        return Secret(value) if value else None

    return Secrets(
        discord_token=get("DISCORD_TOKEN"),
        gitlab_token=get("GITLAB_TOKEN"),
        anthropic_api_key=get("ANTHROPIC_API_KEY"),
        webhook_secret=get("PHPBOTSCOUT_WEBHOOK_SECRET"),
    )


def _is_text(value: str) -> bool:
    # Bytes of the environment that are not UTF-8 arrive as lone surrogates, which no header,
    # HMAC or subprocess can take: serve would fail on them only once it starts using them.
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _without_own_secrets(env: Mapping[str, str]) -> dict[str, str]:
    # ANTHROPIC_API_KEY stays: a claude binary signed in with it sends it where it belongs.
    withheld = {"DISCORD_TOKEN", "GITLAB_TOKEN", "PHPBOTSCOUT_WEBHOOK_SECRET"}
    return {k: v for k, v in env.items() if k not in withheld}


def _anthropic_base_url(env: Mapping[str, str]) -> str | None:
    value = env.get("ANTHROPIC_BASE_URL", "").strip()
    if not value:
        return None
    # The anthropic provider sends the key there, and a claude binary inherits the variable.
    url = _token_url("ANTHROPIC_API_KEY")("ANTHROPIC_BASE_URL", value)
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    if path.lower().endswith("/v1"):
        # Both clients add /v1/messages themselves, so every question would be sent to
        # .../v1/v1/messages and find nothing: refused here rather than at the first question.
        root = urlunsplit(parts._replace(path=path[: -len("/v1")]))
        raise ConfigError(
            "ANTHROPIC_BASE_URL",
            redact_urls(url),
            "an address that stops before /v1, which the client adds itself (with /messages), "
            "so with it every question would go to /v1/v1/messages and find nothing; set it to "
            f"{redact_urls(root)} instead",
        )
    return url


def data_dir(env: Mapping[str, str]) -> Path:
    """Return the per-user data directory (``$XDG_DATA_HOME/phpbotscout``)."""
    xdg = Path(env.get("XDG_DATA_HOME") or "").expanduser()
    # The XDG Base Directory spec: a relative value is invalid and ignored. Used as it is, it
    # would put the index under whatever directory a command happened to be run from.
    if xdg.is_absolute():
        return xdg / "phpbotscout"
    return Path(env.get("HOME", "~")).expanduser() / ".local/share/phpbotscout"


def project_root() -> Path:
    """Return the checkout this package runs from: the embedded default corpus."""
    return Path(__file__).resolve().parent.parent


def environment(process_env: Mapping[str, str], cwd: Path) -> dict[str, str]:
    """The process environment over the ``.env`` file in ``cwd``, when there is one.

    The real environment wins, so a deployment's settings are never shadowed by a stray file.
    """
    dotenv_path = cwd / ".env"
    values: dict[str, str | None] = {}
    if dotenv_path.is_file():
        text = _read_text(
            dotenv_path, "read from the current directory", ".env", "environment file"
        )
        values = dotenv_values(stream=io.StringIO(text))
    return {**{k: v for k, v in values.items() if v is not None}, **process_env}


def find_config_file(explicit: str | None, env: Mapping[str, str], cwd: Path) -> Path | None:
    """Return the configuration file to read, or ``None`` for the embedded default."""
    found = _config_file(explicit, env, cwd)
    return found[0] if found else None


def _config_file(
    explicit: str | None, env: Mapping[str, str], cwd: Path
) -> tuple[Path, str, str] | None:
    """The file to read, how it was found, and the setting that named it (for the remedy)."""
    if explicit:
        return Path(explicit), "named by --config", "--config"
    if env.get("PHPBOTSCOUT_CONFIG"):
        return Path(env["PHPBOTSCOUT_CONFIG"]), "named by PHPBOTSCOUT_CONFIG", "PHPBOTSCOUT_CONFIG"
    candidate = cwd / CONFIG_FILE_NAME
    if candidate.is_file():
        return candidate, "found in the current directory", "--config"
    return None


def load(explicit: str | None, env: Mapping[str, str], cwd: Path) -> Config:
    """Read and validate the configuration once; raise ``ConfigError`` naming what is wrong.

    Raises:
        ConfigFileError: the file is missing, unreadable, not UTF-8 or not valid TOML.
        ConfigError: a key or value in it is not acceptable.
    """
    found = _config_file(explicit, env, cwd)
    if found is None:
        return _build({}, origin="embedded default", base=cwd, env=env, embedded=True)
    path, named_by, where = found
    text = _read_text(path, named_by, where)
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigFileError(
            str(path),
            named_by,
            f"is not valid TOML: {_toml_problem(exc)}",
            "correct it there (phpbotscout.example.toml shows every key in its place)",
        ) from None
    return _build(raw, origin=str(path), base=path.resolve().parent, env=env, embedded=False)


def _read_text(path: Path, named_by: str, where: str, what: str = "configuration file") -> str:
    """The file's text, or a ``ConfigFileError`` saying why it cannot be had."""

    def fail(problem: str, remedy: str) -> ConfigFileError:
        return ConfigFileError(str(path), named_by, problem, remedy, what=what)

    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise fail("does not exist", f"check the path given in {where}") from None
    except IsADirectoryError:
        raise fail("is a directory", f"give {where} the path of a TOML file") from None
    except UnicodeDecodeError as exc:
        raise fail(
            f"is not UTF-8 text (the byte at offset {exc.start} is not UTF-8)", "save it as UTF-8"
        ) from None
    except OSError as exc:
        raise fail(
            f"cannot be read ({exc.strerror or exc})",
            "make it readable by the user phpbotscout runs as",
        ) from None


_TOML_WHERE = re.compile(
    r"(?P<reason>.*) \((?P<where>at line \d+, column \d+|at end of document)\)"
)


def _toml_problem(exc: tomllib.TOMLDecodeError) -> str:
    """Where in the file TOML gave up, then why: "at line 5, column 12: invalid value"."""
    text = str(exc)
    match = _TOML_WHERE.fullmatch(text)
    if match is None:
        return text
    where = match["where"].replace("at end of document", "at the end of the file")
    reason = match["reason"]
    return f"{where}: {reason[:1].lower()}{reason[1:]}"


def from_mapping(raw: Mapping[str, Any], env: Mapping[str, str], base: Path) -> Config:
    """Validate an already-parsed TOML mapping (for tests and embedding)."""
    return _build(raw, origin="mapping", base=base, env=env, embedded=False)


def _build(
    raw: Mapping[str, Any], *, origin: str, base: Path, env: Mapping[str, str], embedded: bool
) -> Config:
    flat = _flatten(raw)
    values: dict[str, Any] = {}
    for name, value in flat.items():
        key = KEYS_BY_NAME.get(name)
        if key is None:
            raise ConfigError(name, value, _unknown_key_hint(name))
        values[name] = key.parse(name, value)
    for key in KEYS:
        values.setdefault(key.name, key.default)

    def resolve(value: str | None) -> Path | None:
        if value is None:
            return None
        p = Path(value).expanduser()
        return p if p.is_absolute() else (base / p)

    secrets = _secrets(env)
    home = data_dir(env)
    local = tuple(p for p in (resolve(v) for v in values["sources.local"]) if p is not None)
    if embedded:
        local = (project_root(),)
        index_path = home / "default.sqlite"
    else:
        index_path = resolve(values["index.path"]) or (base / "phpbotscout.sqlite")
    clones = resolve(values["index.clones"]) or (home / "clones")
    provider = values["answer.provider"]
    if provider is None:
        provider = "anthropic" if secrets.anthropic_api_key else "none"
    if not local and not values["gitlab.group"] and not embedded:
        raise ConfigError(
            "sources.local",
            [] if "sources.local" in flat else None,
            "at least one source: set sources.local to repositories on disk, "
            "or gitlab.group to a GitLab group",
        )
    _check_forge(values, secrets)
    return Config(
        origin=origin,
        embedded=embedded,
        index_path=index_path,
        clones_dir=clones,
        feed_url=values["index.feed.url"],
        ssh_key=resolve(values["index.ssh.key"]),
        ssh_known_hosts=resolve(values["index.ssh.known_hosts"]),
        refresh_interval=values["index.refresh_interval"],
        markdown_scope=values["index.markdown"],
        site_check_interval=values["index.site_check_interval"],
        gitlab_api_url=values["gitlab.url.api"],
        gitlab_group=values["gitlab.group"],
        gitlab_siteless_subgroups=values["gitlab.siteless_subgroups"],
        exclude=values["sources.exclude"],
        local_sources=local,
        source_intervals=values["sources.refresh_intervals"],
        retrieval_mode=values["retrieval.mode"],
        answer_provider=provider,
        answer_model=values["answer.model"],
        answer_timeout=values["answer.timeout"],
        discord_guilds=values["discord.guilds"],
        discord_rate_limit=values["discord.rate_limit"],
        discord_api_url=values["discord.api_url"],
        discord_max_concurrent_answers=values["discord.max_concurrent_answers"],
        webhook_listen=values["webhook.listen"],
        secrets=secrets,
        anthropic_base_url=_anthropic_base_url(env),
        search_path=env.get("PATH"),
        subprocess_env=_without_own_secrets(env),
    )


def _check_forge(values: Mapping[str, Any], secrets: Secrets) -> None:
    """Forge settings that only make sense together."""
    if values["gitlab.group"] and not values["index.feed.url"]:
        raise ConfigError(
            "index.feed.url",
            None,
            "required when gitlab.group is set: the estate feed lists the projects that may be "
            "indexed, and a project it does not list never is",
        )
    if values["index.ssh.key"] and not values["index.ssh.known_hosts"]:
        raise ConfigError(
            "index.ssh.known_hosts",
            None,
            "required with index.ssh.key: SSH clones only trust pinned host keys",
        )
    # Unlike Discord's token and the API key, the GitLab token is optional: without it the
    # API is read anonymously, and plain http sends nothing worth protecting.
    if secrets.gitlab_token and not plain_text_allowed(values["gitlab.url.api"]):
        raise _sent_in_plain_text("gitlab.url.api", values["gitlab.url.api"], "GITLAB_TOKEN")


def check_serve(config: Config) -> None:
    """Refuse to start ``serve`` without what it needs, before anything connects.

    Raises:
        ConfigError: ``DISCORD_TOKEN`` is unset or not shaped like a bot token, or
            ``webhook.listen`` is set without ``PHPBOTSCOUT_WEBHOOK_SECRET``.
    """
    token = config.secrets.discord_token
    if token is None:
        raise ConfigError(
            "DISCORD_TOKEN",
            None,
            "serve needs the bot's token: copy it from the Bot page of your application in the "
            "Discord developer portal into DISCORD_TOKEN (the environment, or an EnvironmentFile)",
        )
    if not _looks_like_bot_token(token.reveal()):
        raise ConfigError(
            "DISCORD_TOKEN",
            "<hidden>",
            "a bot token as the developer portal shows it (three parts separated by dots, the "
            "first naming the bot's id); reset the token there and copy it again",
        )
    if config.webhook_listen is not None and config.secrets.webhook_secret is None:
        host, port = config.webhook_listen
        raise ConfigError(
            "webhook.listen",
            f"{host}:{port}",
            "the push webhook needs a shared secret: set PHPBOTSCOUT_WEBHOOK_SECRET to the "
            "secret token configured on the GitLab webhook, or unset webhook.listen",
        )


def _looks_like_bot_token(token: str) -> bool:
    # The first part is the bot's user id in base64; Discord's client library refuses a token
    # whose first part does not decode to digits, so it is checked here with a clear message.
    parts = token.split(".")
    if len(parts) != 3 or not all(parts):
        return False
    first = parts[0] + "=" * (-len(parts[0]) % 4)
    try:
        decoded = base64.b64decode(first, validate=True).decode("ascii")
    except (ValueError, UnicodeDecodeError):
        return False
    return decoded.isdigit()


def _unknown_key_hint(name: str) -> str:
    section = name.split(".", 1)[0]
    known = [k.name for k in KEYS if k.name.split(".", 1)[0] == section]
    if known:
        return "not a known key; keys in [" + section + "] are " + ", ".join(known)
    sections = sorted({k.name.split(".", 1)[0] for k in KEYS})
    return "not a known key; known sections are " + ", ".join(sections)
