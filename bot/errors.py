"""The errors phpbotscout raises, and what each one tells the person who sees it.

Every message is written to be shown as it is: it says what went wrong and what to do next.
The CLI turns these into one line on stderr and an exit code; the Discord layer into an
ephemeral reply.

    PhpbotscoutError
     ├── UsageError                  exit 2: the command line or configuration is wrong
     │    └── ConfigError            a key, its value and what is allowed
     │         └── ConfigFileError   the file itself: missing, unreadable or not TOML
     └── OperationalError            exit 1: something broke while doing the work
          ├── StoreError             the index database cannot be opened or migrated
          ├── EmptyIndexError        nothing has been indexed yet
          ├── SourceError            a repository could not be read or fetched
          │    ├── DamagedRepository a repository git cannot read for damage on disk
          │    └── ForgeError        the forge API failed
          │         └── RateLimited  the forge asked us to slow down; the run stops
          ├── ProviderError          the answering model failed
          ├── Busy                   a question waited too long for its turn with the model
          ├── DiscordError           Discord refused or could not be reached
          └── ShuttingDown           serve is stopping; ask again shortly
"""

from __future__ import annotations


class PhpbotscoutError(Exception):
    """Base of every error phpbotscout raises on purpose."""

    exit_code = 1
    kind = "error"


class UsageError(PhpbotscoutError):
    """The command line or its inputs are wrong; fixing them fixes the run."""

    exit_code = 2
    kind = "usage"


class ConfigError(UsageError):
    """A configuration file, key or value is not acceptable."""

    kind = "config"

    def __init__(self, key: str, value: object, allowed: str) -> None:
        self.key = key
        self.value = value
        self.allowed = allowed
        # A secret or address read from the environment is named as a variable, so that nobody
        # looks for it in the file; a setting that is missing is said to be not set, rather than
        # to have a value that no TOML file can hold.
        what = "environment variable" if key.isupper() else "configuration key"
        value_said = "is not set" if value is None else f"has value {value!r}"
        super().__init__(f"{what} '{key}' {value_said}: {allowed}")


class ConfigFileError(ConfigError):
    """A configuration or ``.env`` file cannot be used at all: missing, unreadable, not TOML."""

    def __init__(
        self,
        path: str,
        named_by: str,
        problem: str,
        remedy: str,
        *,
        what: str = "configuration file",
    ) -> None:
        # No key is to blame, so the message names the file and where it was named instead.
        self.key = named_by
        self.value = path
        self.allowed = remedy
        UsageError.__init__(self, f"the {what} {path} ({named_by}) {problem}; {remedy}")


class OperationalError(PhpbotscoutError):
    """Something broke while doing the work; the inputs may be fine."""

    kind = "operational"


class StoreError(OperationalError):
    """The index database cannot be opened, read or migrated."""

    kind = "index"


class EmptyIndexError(OperationalError):
    """The index holds no passages, so there is nothing to answer from."""

    kind = "empty_index"


class SourceError(OperationalError):
    """A repository could not be read, fetched or indexed."""

    kind = "source"


class DamagedRepository(SourceError):
    """git cannot read a repository for damage on disk, not for want of permission.

    An object missing or corrupt, refs or a configuration git cannot read; never a file this
    user may not read, nor a repository another user owns.

    ``found`` says only what is wrong, without the advice that ends the message: a clone
    phpbotscout keeps is repaired by cloning it again, not as the message tells an operator.
    """

    def __init__(self, message: str, *, found: str) -> None:
        super().__init__(message)
        self.found = found


class ForgeError(SourceError):
    """The forge API answered with an error or could not be reached."""

    kind = "forge"


class RateLimited(ForgeError):
    """The forge rate-limited us; the run stops rather than spending more of the limit."""

    kind = "rate_limited"

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        self.retry_after = retry_after
        super().__init__(message)


class ProviderError(OperationalError):
    """The answering model could not be reached or answered unusably."""

    kind = "provider"


class Busy(OperationalError):
    """Too many questions were ahead of this one for it to be asked in time.

    Not a ``ProviderError``: the model was never asked, so nothing about it failed.
    """

    kind = "busy"


class DiscordError(OperationalError):
    """Discord refused the bot (a bad token) or could not be reached."""

    kind = "discord"


class ShuttingDown(OperationalError):
    """``serve`` is stopping, so a question it can no longer answer is turned away."""

    kind = "shutting_down"

    def __init__(self, message: str = "") -> None:
        super().__init__(
            message or "The bot is restarting and can't answer this one. Ask again in a minute."
        )
