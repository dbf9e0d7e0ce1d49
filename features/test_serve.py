import os

from pytest_bdd import given, parsers, scenarios

from features.conftest import World
from tests.fakes.discord import TOKEN

scenarios("serve.feature")


@given(parsers.parse('the configuration listens for the push webhook on "{listen}"'))
def webhook_listens(world: World, listen: str) -> None:
    path = world.root / "phpbotscout.toml"
    path.write_text(path.read_text() + f'\n[webhook]\nlisten = "{listen}"\n')


@given(parsers.parse('the configuration\'s Discord address is "{url}"'))
def discord_address(world: World, url: str) -> None:
    path = world.root / "phpbotscout.toml"
    path.write_text(path.read_text() + f'\n[discord]\napi_url = "{url}"\n')


@given("a Discord bot token is set")
def token_set(monkeypatch) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)


@given("the webhook secret holds a byte that is not UTF-8")
def webhook_secret_not_utf8(monkeypatch) -> None:
    # The byte 0xff reaches Python's environment as the lone surrogate \udcff.
    monkeypatch.setenv("PHPBOTSCOUT_WEBHOOK_SECRET", os.fsdecode(b"s3cr\xffet"))
