"""What to tell the operator when Discord refuses the bot (its token, session or commands).

Discord ends a session for good with a close code: 4004 for a token it does not accept, 4010
to 4014 for a session it will not serve as asked. It sends the same code on every try until
something changes, so these messages say what the code means and what to change, never just
to start ``serve`` again. Plain close codes keep this free of hikari (only ``bot/app.py``
knows it). Slash commands Discord will not take at start-up are said the same way.
"""

from __future__ import annotations

AUTHENTICATION_FAILED = 4004

# Close code -> (what it means, what to change). serve connects with the shard count Discord's
# own gateway recommends and asks for no gateway intent at all (slash commands need none), so a
# refusal of those points away from serve's configuration, at the address or the application.
_FOR_GOOD: dict[int, tuple[str, str]] = {
    4010: (
        "invalid shard",
        "serve identifies with the shards the gateway recommends, so check that "
        "discord.api_url is Discord's API address",
    ),
    4011: (
        "sharding required: the bot is in more guilds than one connection may serve",
        "remove the bot from the guilds it need not be in",
    ),
    4012: (
        "invalid API version: the gateway does not accept the version serve speaks",
        "check that discord.api_url is Discord's API address, and update phpbotscout, whose "
        "hikari dependency picks the version",
    ),
    4013: (
        "invalid intents",
        "serve asks for no gateway intent at all, so check that discord.api_url is Discord's "
        "API address",
    ),
    4014: (
        "disallowed intents",
        "serve asks for no privileged intent, so the cause is in the application's settings: "
        "check its Bot page in the developer portal and any notice there about verification",
    ),
}


def token_refused(code: int) -> str:
    """Discord refused the bot's token, over REST (401) or at the gateway's IDENTIFY (4004)."""
    return (
        f"Discord refused the bot's token ({code}). Reset the token on the Bot page of the "
        "developer portal and put the new one in DISCORD_TOKEN."
    )


def no_sessions_left() -> str:
    """Discord's window of session starts is used up: starting again at once cannot help."""
    return (
        "Discord allows this bot no more gateway sessions for now: too many were started within "
        "Discord's daily window, most often by a service restarting serve in a loop. Wait until "
        "the window resets (the log line above says when) before starting serve again; starting "
        "more sessions than allowed can get the bot's token reset."
    )


def commands_refused(status: int | None, guild: int | None, said: str) -> str:
    """Discord would not take the slash commands as ``serve`` started; none of them would work."""
    if status == 403 and guild is not None:
        # Discord's "Missing Access": commands go only to a guild that let the bot in for them.
        return (
            f"Discord refused the slash commands for guild {guild} (403: {said}): the bot is not "
            "in that guild, or was added without the applications.commands scope. Add it with "
            "the scopes bot and applications.commands (OAuth2 URL Generator in the developer "
            "portal), or take the guild out of discord.guilds."
        )
    where = f"for guild {guild}" if guild is not None else "globally"
    code = f"{status}: " if status is not None else ""
    return (
        f"Discord did not take the slash commands {where} ({code}{said}), so none of them "
        "would answer. Start serve again; if it keeps happening, check Discord's status and "
        "that discord.api_url is Discord's API address."
    )


def refused_message(close_code: int | None, reason: str) -> str:
    """What to tell the operator when Discord closed the gateway as ``serve`` started."""
    if close_code == AUTHENTICATION_FAILED:
        return token_refused(close_code)
    return _for_good(close_code, "refused the bot's gateway session") or (
        f"Discord refused the bot's gateway session with close code {close_code} ({reason}); "
        "check Discord's status and that discord.api_url is Discord's API address"
    )


def dropped_message(close_code: int | None, failure: str) -> str:
    """What to tell the operator when Discord ended the connection for good while serving."""
    if close_code == AUTHENTICATION_FAILED:
        # The token worked at start-up, so it was reset or revoked while serve ran.
        return (
            "Discord ended the connection because it no longer accepts the bot's token (4004). "
            "Reset the token on the Bot page of the developer portal, put the new one in "
            "DISCORD_TOKEN, and start serve again."
        )
    return _for_good(close_code, "ended the bot's gateway session for good") or (
        f"the Discord connection ended unexpectedly ({failure or 'closed'}); start serve again, "
        "and if it keeps happening check Discord's status and the bot's settings"
    )


def _for_good(close_code: int | None, what: str) -> str | None:
    known = _FOR_GOOD.get(close_code or 0)
    if known is None:
        return None
    meaning, change = known
    return (
        f"Discord {what} with close code {close_code} ({meaning}); {change}. Starting serve "
        "again without that change is refused the same way."
    )
