import os
import re
import tomllib
from pathlib import Path

import pytest

from bot import config
from bot.config import RateLimit
from bot.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def _load(tmp_path: Path, text: str, env: dict[str, str] | None = None) -> config.Config:
    path = tmp_path / "phpbotscout.toml"
    path.write_text(text)
    return config.load(str(path), env or {"HOME": str(tmp_path)}, tmp_path)


def test_the_example_file_is_valid_and_names_every_key(tmp_path):
    text = (ROOT / "phpbotscout.example.toml").read_text()
    loaded = _load(tmp_path, text.replace("local = []", 'local = ["."]'))
    assert loaded.answer_model == "claude-haiku-4-5"
    commented = text.replace("# ", "")
    for key in config.KEYS:
        leaf = key.name.rsplit(".", 1)[-1]
        assert f"{leaf} =" in commented or f"[{key.name}]" in commented, key.name


def test_every_key_is_in_the_configuration_reference():
    reference = (ROOT / "docs/reference/configuration.md").read_text()
    for key in config.KEYS:
        assert f"`{key.name}`" in reference, key.name


def test_relative_paths_resolve_against_the_file(tmp_path):
    loaded = _load(tmp_path, '[sources]\nlocal = ["repos"]\n[index]\npath = "x.sqlite"\n')
    assert loaded.local_sources == (tmp_path / "repos",)
    assert loaded.index_path == tmp_path / "x.sqlite"


@pytest.mark.parametrize(
    ("text", "key", "allowed"),
    [
        ('[answer]\nprovider = "gpt"\n', "answer.provider", "one of 'anthropic'"),
        ('[index]\nrefresh_interval = "soon"\n', "index.refresh_interval", "duration"),
        ('[index]\nsite_check_interval = "daily"\n', "index.site_check_interval", "0 (ask"),
        ("[index]\nsite_check_interval = -5\n", "index.site_check_interval", "'6h'"),
        ("[index]\nsite_check_interval = true\n", "index.site_check_interval", "duration"),
        ("[index]\nrefresh_interval = nan\n", "index.refresh_interval", "positive"),
        ("[index]\nsite_check_interval = nan\n", "index.site_check_interval", "0 (ask"),
        ('[indx]\npath = "x"\n', "indx.path", "known sections"),
        ('[index]\npaht = "x"\n', "index.paht", "keys in [index] are"),
        ('[discord]\nrate_limit = "lots"\n', "discord.rate_limit", "COUNT/DURATION"),
        ('[gitlab.url]\napi = "ftp://x"\n', "gitlab.url.api", "scheme https or http"),
        ('[webhook]\nlisten = "8080"\n', "webhook.listen", "HOST:PORT"),
        ('[webhook]\nlisten = ":8080"\n', "webhook.listen", "HOST:PORT"),
        ('[webhook]\nlisten = "127.0.0.1:0"\n', "webhook.listen", "HOST:PORT"),
        ('[webhook]\nlisten = "127.0.0.1:65536"\n', "webhook.listen", "HOST:PORT"),
        ("[webhook]\nlisten = 8080\n", "webhook.listen", "HOST:PORT"),
        ("[discord]\nrate_limit = 3\n", "discord.rate_limit", "COUNT/DURATION"),
        ('[discord]\nrate_limit = "0/60s"\n', "discord.rate_limit", "COUNT/DURATION"),
        ('exclude = ["acme/ok", " "]\n', "sources.exclude", "a list of non-empty strings"),
        ('[answer]\ntimeout = "601s"\n', "answer.timeout", "at most 600 seconds"),
        ('[retrieval]\nmode = "vector"\n', "retrieval.mode", "one of 'bm25', 'hybrid'"),
        ('[discord]\nrate_limit = "²/60s"\n', "discord.rate_limit", "COUNT/DURATION"),
        ('[webhook]\nlisten = "127.0.0.1:8²"\n', "webhook.listen", "HOST:PORT"),
        ('[discord]\nguilds = ["²"]\n', "discord.guilds", "guild ids"),
        ("[discord]\nguilds = [-5]\n", "discord.guilds", "positive integers"),
        ("[discord]\nguilds = [0]\n", "discord.guilds", "positive integers"),
        (f'[discord]\nguilds = ["{2**64}"]\n', "discord.guilds", "positive integers"),
    ],
)
def test_bad_values_name_the_key_the_value_and_what_is_allowed(tmp_path, text, key, allowed):
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, '[sources]\nlocal = ["."]\n' + text)
    message = str(caught.value)
    assert key in message
    assert allowed in message
    assert caught.value.exit_code == 2


@pytest.mark.parametrize(
    "text",
    [
        "[index]\nrefresh_interval = inf\n",
        "[index]\nrefresh_interval = 1e308\n",
        '[index]\nrefresh_interval = "99999999999999999999d"\n',
        f'[index]\nrefresh_interval = "{"9" * 400}s"\n',  # float() of it is inf
        '[index]\nrefresh_interval = "366d"\n',
        "[index]\nsite_check_interval = inf\n",
        '[sources.refresh_intervals]\nalpha = "400d"\n',
        "[answer]\ntimeout = inf\n",
    ],
)
def test_a_duration_is_at_most_a_year(tmp_path, text):
    with pytest.raises(ConfigError, match="at most") as caught:
        _load(tmp_path, '[sources]\nlocal = ["."]\n' + text)
    assert caught.value.exit_code == 2


def test_a_rate_limit_window_is_at_most_a_year(tmp_path):
    with pytest.raises(ConfigError, match="DURATION at most a year"):
        _load(tmp_path, '[sources]\nlocal = ["."]\n[discord]\nrate_limit = "3/400d"\n')


def test_a_number_of_seconds_in_quotes_is_a_duration(tmp_path):
    text = '[sources]\nlocal = ["."]\n[index]\nrefresh_interval = "3600"\n'
    text += 'site_check_interval = " 90 "\n[discord]\nrate_limit = "3/60"\n'
    loaded = _load(tmp_path, text)
    assert (loaded.refresh_interval, loaded.site_check_interval) == (3600.0, 90.0)
    assert loaded.discord_rate_limit == RateLimit(3, 60.0)


@pytest.mark.parametrize("value", ['"0"', '"-60"', '"1e3"', '"60 s s"', '"²"', '"3/0"'])
def test_a_quoted_number_of_seconds_is_still_positive_and_plain(tmp_path, value):
    key = "rate_limit" if "/" in value else "refresh_interval"
    table = "discord" if "/" in value else "index"
    with pytest.raises(ConfigError, match=key):
        _load(tmp_path, f'[sources]\nlocal = ["."]\n[{table}]\n{key} = {value}\n')


def test_a_year_is_the_longest_duration_allowed(tmp_path):
    text = '[sources]\nlocal = ["."]\n[index]\nrefresh_interval = "365d"\n'
    text += "site_check_interval = 31536000\n"
    loaded = _load(tmp_path, text)
    assert loaded.refresh_interval == loaded.site_check_interval == 365 * 86400.0


def test_a_refresh_interval_names_its_source_in_any_letter_case_the_exact_key_first(tmp_path):
    text = '[sources]\nlocal = ["."]\n[index]\nrefresh_interval = "1d"\n'
    text += '[sources.refresh_intervals]\n"My-Org/Tools" = "1h"\nTOOLS = "2h"\nTools = "3h"\n'
    loaded = _load(tmp_path, text)
    assert loaded.interval_for("my-org/tools") == 3600.0
    assert loaded.interval_for("Tools") == 3 * 3600.0  # spelled exactly as one key is
    assert loaded.interval_for("tools") == 2 * 3600.0  # of keys apart by case, the shortest
    assert loaded.interval_for("my-org/other") == 86400.0


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        (None, 86400.0),
        ('"0"', 0.0),
        ("0", 0.0),
        ('"0m"', 0.0),
        ("0.0", 0.0),
        ('"90m"', 5400.0),
        ("3600", 3600.0),
    ],
)
def test_the_site_check_interval_takes_a_duration_or_zero(tmp_path, value, seconds):
    extra = f"[index]\nsite_check_interval = {value}\n" if value is not None else ""
    loaded = _load(tmp_path, '[sources]\nlocal = ["."]\n' + extra)
    assert loaded.site_check_interval == seconds


def test_secrets_are_refused_in_the_file(tmp_path):
    with pytest.raises(ConfigError, match="set GITLAB_TOKEN"):
        _load(tmp_path, '[gitlab]\ntoken = "glpat-123"\n')


@pytest.mark.parametrize("name", sorted(config.SECRET_ENV.values()))
def test_a_secret_that_is_not_utf8_is_a_configuration_error(tmp_path, name):
    env = {"HOME": str(tmp_path), name: os.fsdecode(b"s3cr\xffet")}  # as os.environ has it
    with pytest.raises(
        ConfigError, match=rf"environment variable '{name}' has value '<hidden>': UTF-8 text"
    ) as caught:
        _load(tmp_path, '[sources]\nlocal = ["."]\n', env)
    assert "s3cr" not in str(caught.value)
    assert caught.value.exit_code == 2


@pytest.mark.parametrize("name", ["GITLAB_TOKEN", "DISCORD_TOKEN", "ANTHROPIC_API_KEY"])
@pytest.mark.parametrize("slip", ["é", "\u2013", "\u200b", "\x7f", "\x1b"])
def test_a_secret_sent_in_a_header_must_be_printable_ascii(tmp_path, name, slip):
    env = {"HOME": str(tmp_path), name: f"glpat-s3cr{slip}et"}
    with pytest.raises(
        ConfigError, match=rf"environment variable '{name}' has value '<hidden>': printable ASCII"
    ) as caught:
        _load(tmp_path, '[sources]\nlocal = ["."]\n', env)
    assert "s3cr" not in str(caught.value)
    assert "copy the secret again" in str(caught.value)
    assert caught.value.exit_code == 2


def test_a_secret_never_shows_itself(tmp_path):
    loaded = _load(
        tmp_path, '[sources]\nlocal = ["."]\n', {"GITLAB_TOKEN": "glpat-sekrit", "HOME": "/h"}
    )
    assert "glpat-sekrit" not in repr(loaded)
    assert loaded.secrets.gitlab_token is not None
    assert loaded.secrets.gitlab_token.reveal() == "glpat-sekrit"


def test_invalid_toml_names_the_file(tmp_path):
    with pytest.raises(ConfigError, match="valid TOML"):
        _load(tmp_path, "[index\n")


def test_a_toml_error_says_which_file_where_and_why(tmp_path, home):
    (tmp_path / "mid.toml").write_text('[sources]\nlocal = ["."]\n\n\nrefresh = = 1\n')
    with pytest.raises(ConfigError) as caught:
        config.load("mid.toml", {"HOME": str(tmp_path)}, tmp_path)
    assert str(caught.value) == (
        "the configuration file mid.toml (named by --config) is not valid TOML: at line 5, "
        "column 11: invalid value; correct it there (phpbotscout.example.toml shows every key "
        "in its place)"
    )
    assert caught.value.exit_code == 2


def test_a_missing_file_says_which_setting_named_it(tmp_path):
    env = {"HOME": str(tmp_path), "PHPBOTSCOUT_CONFIG": "/nonexist.toml"}
    with pytest.raises(ConfigError) as caught:
        config.load(None, env, tmp_path)
    assert str(caught.value) == (
        "the configuration file /nonexist.toml (named by PHPBOTSCOUT_CONFIG) does not exist; "
        "check the path given in PHPBOTSCOUT_CONFIG"
    )
    assert caught.value.exit_code == 2


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (None, "is a directory; give --config the path of a TOML file"),
        (b"a = 1\n\xff\n", "is not UTF-8 text (the byte at offset 6 is not UTF-8)"),
        (b'a = "open', "is not valid TOML: at the end of the file: unterminated string"),
    ],
    ids=["directory", "not-utf8", "end-of-file"],
)
def test_a_file_that_cannot_be_read_says_what_is_wrong(tmp_path, content, problem):
    path = tmp_path / "it.toml"
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    with pytest.raises(ConfigError) as caught:
        config.load(str(path), {"HOME": str(tmp_path)}, tmp_path)
    assert str(caught.value).startswith(f"the configuration file {path} (named by --config) ")
    assert problem in str(caught.value)
    assert "configuration key" not in str(caught.value)


def test_a_file_found_in_the_working_directory_is_said_to_be_found_there(tmp_path):
    (tmp_path / "phpbotscout.toml").write_text("[index\n")
    with pytest.raises(ConfigError, match=r"\(found in the current directory\) is not valid TOML"):
        config.load(None, {"HOME": str(tmp_path)}, tmp_path)


def test_no_sources_at_all_is_a_configuration_error(tmp_path):
    with pytest.raises(ConfigError, match="at least one source"):
        _load(tmp_path, "")


def test_without_a_file_the_checkout_indexes_itself(tmp_path):
    loaded = config.load(None, {"HOME": str(tmp_path)}, tmp_path)
    assert loaded.embedded
    assert loaded.local_sources == (config.project_root(),)
    assert loaded.index_path == tmp_path / ".local/share/phpbotscout/default.sqlite"
    assert loaded.answer_provider == "none"


@pytest.mark.parametrize("xdg", ["rel", "./rel", "rel/data"])
def test_a_relative_xdg_data_home_is_ignored(tmp_path, xdg):
    loaded = config.load(None, {"HOME": str(tmp_path), "XDG_DATA_HOME": xdg}, tmp_path)
    assert loaded.index_path == tmp_path / ".local/share/phpbotscout/default.sqlite"
    assert loaded.clones_dir == tmp_path / ".local/share/phpbotscout/clones"


def test_an_absolute_xdg_data_home_is_used(tmp_path):
    env = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    loaded = config.load(None, env, tmp_path)
    assert loaded.index_path == tmp_path / "data/phpbotscout/default.sqlite"


def test_a_key_in_the_environment_selects_anthropic(tmp_path):
    loaded = config.load(None, {"HOME": str(tmp_path), "ANTHROPIC_API_KEY": "k"}, tmp_path)
    assert loaded.answer_provider == "anthropic"


def test_the_example_parses_as_toml():
    tomllib.loads((ROOT / "phpbotscout.example.toml").read_text())


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('[gitlab]\ngroup = "acme"\n', "configuration key 'index.feed.url' is not set: required"),
        (
            '[sources]\nlocal = ["."]\n[index.ssh]\nkey = "id"\n',
            "configuration key 'index.ssh.known_hosts' is not set: required",
        ),
        ("[index]\npath = 'x.sqlite'\n", "configuration key 'sources.local' is not set: at least"),
        ("[sources]\nlocal = []\n", "configuration key 'sources.local' has value []: at least"),
    ],
    ids=["feed", "known-hosts", "no-sources", "empty-sources"],
)
def test_a_required_setting_that_is_missing_is_said_to_be_not_set(tmp_path, text, said):
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, text)
    assert str(caught.value).startswith(said)
    assert "None" not in str(caught.value)


def test_a_group_needs_the_estate_feed(tmp_path):
    with pytest.raises(ConfigError, match=r"index\.feed\.url"):
        _load(tmp_path, '[gitlab]\ngroup = "acme"\n')


def test_a_token_is_never_configured_for_plain_http_off_loopback(tmp_path):
    text = (
        '[gitlab]\ngroup = "acme"\n[gitlab.url]\napi = "http://gl.example/api/v4"\n'
        '[index.feed]\nurl = "https://feed.example/p.json"\n'
    )
    with pytest.raises(ConfigError, match="never sent in plain text"):
        _load(tmp_path, text, {"HOME": str(tmp_path), "GITLAB_TOKEN": "t"})
    assert _load(tmp_path, text).gitlab_api_url == "http://gl.example/api/v4"  # no token: fine
    local = text.replace("gl.example", "127.0.0.1:8080")
    assert _load(tmp_path, local, {"HOME": str(tmp_path), "GITLAB_TOKEN": "t"}).secrets.gitlab_token


def test_a_refused_url_is_named_without_its_password(tmp_path):
    with pytest.raises(ConfigError, match=r"ftp://\*\*\*@gl\.example") as caught:
        _load(
            tmp_path,
            '[sources]\nlocal = ["."]\n[gitlab.url]\napi = "ftp://u:PASSWORD@gl.example"\n',
        )
    assert "PASSWORD" not in str(caught.value)
    env = {"HOME": str(tmp_path), "ANTHROPIC_BASE_URL": "ftp://u:PASSWORD@api.example"}
    with pytest.raises(ConfigError, match=r"ANTHROPIC_BASE_URL.*ftp://\*\*\*@api") as caught:
        config.load(None, env, tmp_path / "elsewhere")
    assert "PASSWORD" not in str(caught.value)


@pytest.mark.parametrize(
    ("text", "env", "key", "secret"),
    [
        ('[discord]\napi_url = "http://discord.example/api/v10"\n', {}, "discord.api_url",
         "DISCORD_TOKEN"),
        ("", {"ANTHROPIC_BASE_URL": "http://proxy.example:8080"}, "ANTHROPIC_BASE_URL",
         "ANTHROPIC_API_KEY"),
    ],
    ids=["discord", "anthropic"],
)  # fmt: skip
def test_an_address_a_secret_always_goes_to_is_https_unless_it_is_loopback(
    tmp_path, text, env, key, secret
):
    base = '[sources]\nlocal = ["."]\n'
    with pytest.raises(
        ConfigError, match=rf"{key}.*an https URL: {secret} is sent to it"
    ) as caught:
        _load(tmp_path, base + text, {"HOME": str(tmp_path), **env})
    assert "loopback" in str(caught.value) and caught.value.exit_code == 2
    for host in ("127.0.0.1:8080", "localhost:8080", "[::1]:8080"):
        local = {k: v.replace("proxy.example:8080", host) for k, v in env.items()}
        loaded = _load(
            tmp_path, base + text.replace("discord.example", host), {"HOME": str(tmp_path), **local}
        )
        assert host in (loaded.anthropic_base_url or loaded.discord_api_url)


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://[::1", "Invalid IPv6 URL"),
        ("https://u:SECRET@[::1/api", "Invalid IPv6 URL"),
        ("https://gl.example:99999/api/v4", "Port out of range"),
        ("https://u:SECRET@gl.example:port/api/v4", "Port could not be cast"),
    ],
)
@pytest.mark.parametrize("key", ["gitlab.url.api", "index.feed.url", "discord.api_url"])
def test_an_address_python_cannot_take_apart_is_a_configuration_error(tmp_path, key, url, reason):
    table, _, leaf = key.rpartition(".")
    with pytest.raises(ConfigError, match=rf"{key}.*scheme https or http \({reason}") as caught:
        _load(tmp_path, f'[sources]\nlocal = ["."]\n[{table}]\n{leaf} = "{url}"\n')
    assert "SECRET" not in str(caught.value)
    env = {"HOME": str(tmp_path), "ANTHROPIC_BASE_URL": url}
    with pytest.raises(ConfigError, match=rf"ANTHROPIC_BASE_URL.*\({reason}"):
        config.load(None, env, tmp_path / "elsewhere")


@pytest.mark.parametrize("userinfo", ["bot:SECRET@", "bot@", ":SECRET@"])
def test_an_address_a_secret_is_sent_to_carries_no_user_or_password(tmp_path, userinfo):
    text = f'[sources]\nlocal = ["."]\n[discord]\napi_url = "https://{userinfo}discord.example"\n'
    with pytest.raises(ConfigError, match=r"discord\.api_url.*DISCORD_TOKEN.*'user:password@'"):
        _load(tmp_path, text)
    env = {"HOME": str(tmp_path), "ANTHROPIC_BASE_URL": f"http://{userinfo}127.0.0.1:8099"}
    with pytest.raises(ConfigError, match=r"ANTHROPIC_BASE_URL.*ANTHROPIC_API_KEY") as caught:
        config.load(None, env, tmp_path / "elsewhere")
    assert "SECRET" not in str(caught.value)
    assert "without a user name or password" in str(caught.value)


@pytest.mark.parametrize("userinfo", ["reader:SECRET@", "reader@", ":SECRET@"])
def test_the_gitlab_api_address_carries_no_user_or_password(tmp_path, userinfo):
    text = f'[sources]\nlocal = ["."]\n[gitlab.url]\napi = "https://{userinfo}gl.example/api/v4"\n'
    with pytest.raises(
        ConfigError, match=r"gitlab\.url\.api.*GITLAB_TOKEN.*'user:password@'"
    ) as caught:
        _load(tmp_path, text)
    assert "SECRET" not in str(caught.value)
    assert "without a user name or password" in str(caught.value)


def test_the_estate_feed_may_carry_its_own_credentials(tmp_path):
    text = '[gitlab]\ngroup = "acme"\n[index.feed]\nurl = "https://reader:pw@feed.example/p.json"\n'
    assert _load(tmp_path, text).feed_url == "https://reader:pw@feed.example/p.json"


def test_an_ssh_key_needs_pinned_host_keys(tmp_path):
    with pytest.raises(ConfigError, match=r"index\.ssh\.known_hosts"):
        _load(tmp_path, '[sources]\nlocal = ["."]\n[index.ssh]\nkey = "id"\n')


def test_the_sdk_base_url_is_read_from_the_environment_and_checked(tmp_path):
    env = {"HOME": str(tmp_path), "ANTHROPIC_BASE_URL": "http://127.0.0.1:8099/"}
    assert config.load(None, env, tmp_path).anthropic_base_url == "http://127.0.0.1:8099"
    assert config.load(None, {"HOME": str(tmp_path)}, tmp_path).anthropic_base_url is None
    with pytest.raises(ConfigError, match="ANTHROPIC_BASE_URL") as caught:
        config.load(None, {**env, "ANTHROPIC_BASE_URL": "api.example"}, tmp_path)
    assert caught.value.exit_code == 2


def test_the_provider_is_none_without_a_key_and_refused_without_what_it_needs(tmp_path):
    from bot.answer.providers import build_composer

    loaded = _load(tmp_path, '[sources]\nlocal = ["."]\n[answer]\nprovider = "anthropic"\n')
    with pytest.raises(ConfigError, match="set ANTHROPIC_API_KEY"):
        build_composer(loaded)
    none = _load(tmp_path, '[sources]\nlocal = ["."]\n')
    assert none.answer_provider == "none" and build_composer(none) is None


def test_a_dotenv_file_supplies_secrets_but_the_environment_wins(tmp_path):
    (tmp_path / ".env").write_text("GITLAB_TOKEN=from-file\nDISCORD_TOKEN=file-discord\n# note\n")
    env = config.environment({"DISCORD_TOKEN": "from-env", "HOME": str(tmp_path)}, tmp_path)
    loaded = _load(tmp_path, '[sources]\nlocal = ["."]\n', env)
    assert loaded.secrets.gitlab_token is not None
    assert loaded.secrets.gitlab_token.reveal() == "from-file"
    assert loaded.secrets.discord_token is not None
    assert loaded.secrets.discord_token.reveal() == "from-env"


def test_a_dotenv_file_that_is_not_utf8_is_named_with_what_to_do(tmp_path):
    (tmp_path / ".env").write_bytes("GITLAB_TOKEN=glpat-café\n".encode("latin-1"))
    with pytest.raises(ConfigError) as caught:
        config.environment({"HOME": str(tmp_path)}, tmp_path)
    assert str(caught.value) == (
        f"the environment file {tmp_path / '.env'} (read from the current directory) is not "
        "UTF-8 text (the byte at offset 22 is not UTF-8); save it as UTF-8"
    )
    assert caught.value.exit_code == 2


def test_without_a_dotenv_file_the_environment_is_used_as_it_is(tmp_path):
    assert config.environment({"A": "1"}, tmp_path) == {"A": "1"}


def test_retrieval_mode_is_bm25_unless_hybrid_is_chosen(tmp_path):
    assert _load(tmp_path, '[sources]\nlocal = ["."]\n').retrieval_mode == "bm25"
    chosen = _load(tmp_path, '[sources]\nlocal = ["."]\n[retrieval]\nmode = "hybrid"\n')
    assert chosen.retrieval_mode == "hybrid"


def test_the_edges_of_what_is_allowed_are_allowed(tmp_path):
    env = {"HOME": str(tmp_path), "PHPBOTSCOUT_WEBHOOK_SECRET": "s"}
    text = (
        '[sources]\nlocal = ["."]\n[answer]\ntimeout = "600s"\n'
        '[webhook]\nlisten = "[::1]:65535"\n[discord]\nrate_limit = "1/1s"\n'
        f'guilds = [1, "{2**64 - 1}"]\n'
    )
    loaded = _load(tmp_path, text, env)
    assert loaded.discord_guilds == (1, 2**64 - 1)
    assert loaded.answer_timeout == 600.0
    assert loaded.webhook_listen == ("::1", 65535)


def test_secrets_are_equal_only_to_the_same_secret():
    assert config.Secret("glpat-a") == config.Secret("glpat-a")
    assert config.Secret("glpat-a") != config.Secret("glpat-b")
    assert config.Secret("glpat-a") != "glpat-a"  # never equal to the bare string it hides


@pytest.mark.parametrize(
    ("url", "instead"),
    [
        ("https://proxy.example/anthropic/v1", "https://proxy.example/anthropic"),
        ("https://proxy.example/anthropic/V1/", "https://proxy.example/anthropic"),
        ("http://127.0.0.1:8099/v1", "http://127.0.0.1:8099"),
    ],
)
def test_an_anthropic_base_url_ending_in_v1_is_refused_with_the_address_to_set(
    tmp_path, url, instead
):
    env = {"HOME": str(tmp_path), "ANTHROPIC_BASE_URL": url}
    with pytest.raises(ConfigError, match=rf"set it to {re.escape(instead)} instead") as caught:
        config.load(None, env, tmp_path / "elsewhere")
    assert caught.value.exit_code == 2
    for kept in (instead, instead + "/v1beta", instead + "/v10"):  # only a last /v1 is refused
        env["ANTHROPIC_BASE_URL"] = kept
        assert config.load(None, env, tmp_path / "elsewhere").anthropic_base_url == kept
