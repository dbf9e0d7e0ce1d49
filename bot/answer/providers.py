"""Choosing the composer ``answer.provider`` names, and refusing an incomplete setup."""

from __future__ import annotations

import shutil
from pathlib import Path

from bot.answer.composer import Composer
from bot.config import Config
from bot.errors import ConfigError


def build_composer(config: Config) -> Composer | None:
    """The configured composer, or ``None`` for ``answer.provider = "none"``.

    Raises:
        ConfigError: the provider lacks what it needs (an API key, the ``claude`` binary).
    """
    if config.answer_provider == "none":
        return None
    if config.answer_provider == "anthropic":
        # Imported here: the SDK takes most of a second to import, and most commands never ask.
        from bot.answer.anthropic_api import AnthropicComposer

        key = config.secrets.anthropic_api_key
        if key is None:
            raise ConfigError(
                "answer.provider",
                "anthropic",
                "it needs an API key: set ANTHROPIC_API_KEY in the environment (or .env), "
                "or choose 'claude-local' or 'none'",
            )
        return AnthropicComposer(
            key, config.answer_model, config.answer_timeout, base_url=config.anthropic_base_url
        )
    from bot.answer.claude_local import ClaudeLocalComposer

    found = shutil.which("claude", path=config.search_path)
    if found is None:
        raise ConfigError(
            "answer.provider",
            "claude-local",
            "it needs the claude binary, which is not on PATH: install Claude Code and sign "
            "in, or choose 'anthropic' (with ANTHROPIC_API_KEY) or 'none'",
        )
    return ClaudeLocalComposer(
        Path(found), config.answer_model, config.answer_timeout, config.subprocess_env
    )
