"""Which clone URL is used, and where a credential may go."""

from __future__ import annotations

import base64
import shlex
from dataclasses import replace
from pathlib import Path

import pytest

from bot.config import Secret
from bot.errors import SourceError
from bot.forge.origin import (
    forge_root,
    is_loopback,
    plain_text_allowed,
    redact_urls,
    same_origin,
    ssh_endpoint,
    ssh_host,
)
from bot.git_transport import GitAccess
from tests.unit.test_predicate import project

TOKEN = Secret("glpat-unit")


def test_origins_compare_scheme_host_and_port():
    assert same_origin("https://GL.example/a.git", "https://gl.example:443/")
    assert not same_origin("http://gl.example/a.git", "https://gl.example/")
    assert not same_origin("https://gl.example:8443/a.git", "https://gl.example/")
    assert not same_origin("https://gl.example.evil/a.git", "https://gl.example/")
    assert not same_origin("https://gl.example@evil.example/a.git", "https://gl.example/")
    # A URL without a scheme or without a host has no origin, so it matches nothing, itself
    # included: a token is never sent to an address that does not say where it goes.
    for partial in ("https:///a.git", "//gl.example/a.git", "gl.example/a.git"):
        assert not same_origin(partial, partial), partial


def test_plain_http_is_only_for_loopback():
    assert plain_text_allowed("https://gl.example/")
    assert plain_text_allowed("http://127.0.0.1:8080/")
    assert plain_text_allowed("http://localhost/")
    assert not plain_text_allowed("http://gl.example/")
    assert not plain_text_allowed("127.0.0.1/api")  # no scheme: nowhere a token may go
    assert is_loopback("::1") and is_loopback("127.3.2.1") and not is_loopback("10.0.0.1")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("http://user:PASSWORD@127.0.0.1:1", "http://***@127.0.0.1:1"),
        ("Could not reach https://PASSWORD@proxy.example/v1. Check it.",
         "Could not reach https://***@proxy.example/v1. Check it."),
        ("http://u:PASS@WORD@h.example:8/p and http://h2.example/",
         "http://***@h.example:8/p and http://h2.example/"),
        ("https://feed.example/p.json?private_token=PASSWORD&x=1",
         "https://feed.example/p.json?***"),
        ("https://discord.com/api/v10", "https://discord.com/api/v10"),
        ("git@gl.example:acme/a.git has no scheme", "git@gl.example:acme/a.git has no scheme"),
    ],
)  # fmt: skip
def test_a_url_in_a_message_keeps_where_it_points_and_loses_its_credentials(text, shown):
    assert redact_urls(text) == shown


def test_forge_root_and_ssh_hosts():
    assert forge_root("https://gl.example/api/v4") == "https://gl.example/"
    assert forge_root("http://127.0.0.1:9000/api/v4") == "http://127.0.0.1:9000/"
    assert forge_root("https://[::1]/api/v4") == "https://[::1]/"
    assert forge_root("https://[::1]:8443/api/v4") == "https://[::1]:8443/"
    assert ssh_host("git@gl.example:acme/a.git") == "gl.example"
    assert ssh_host("ssh://git@gl.example:2222/acme/a.git") == "gl.example"
    assert ssh_host("https://gl.example/acme/a.git") is None
    assert ssh_endpoint("git@gl.example:acme/a.git") == ("gl.example", 22)
    assert ssh_endpoint("ssh://git:secret@GL.example:2222/acme/a.git") == ("gl.example", 2222)
    assert ssh_endpoint("ssh://git@[::1]/acme/a.git") == ("::1", 22)
    assert ssh_endpoint("https://gl.example/acme/a.git") is None


def test_with_a_token_the_clone_url_must_name_the_forge_over_its_scheme():
    access = GitAccess("https://gl.example/api/v4", TOKEN)
    assert access.url_for(project()) == "https://gl.example/acme/handbook.git"
    for bad in (
        "http://gl.example/acme/handbook.git",
        "https://evil.example/acme/handbook.git",
        "https://gl.example:444/acme/handbook.git",
    ):
        with pytest.raises(SourceError, match="not fetched"):
            access.url_for(replace(project(), http_url=bad))


def test_without_a_token_nothing_is_checked_or_sent():
    access = GitAccess("https://gl.example/api/v4", None)
    foreign = replace(project(), http_url="http://elsewhere.example/x.git")
    assert access.url_for(foreign) == "http://elsewhere.example/x.git"
    env = access.env()
    assert not any("extraHeader" in v for v in env.values())


def test_the_token_travels_as_a_basic_header_scoped_to_the_forge_with_no_redirects():
    env = GitAccess("https://gl.example/api/v4", TOKEN).env()
    pairs = {
        env[f"GIT_CONFIG_KEY_{i}"]: env[f"GIT_CONFIG_VALUE_{i}"]
        for i in range(int(env["GIT_CONFIG_COUNT"]))
    }
    header = pairs["http.https://gl.example/.extraHeader"]
    assert base64.b64decode(header.split()[-1]).decode() == "oauth2:glpat-unit"
    assert pairs["http.followRedirects"] == "false"
    assert pairs["credential.helper"] == ""
    assert "glpat-unit" not in repr(GitAccess("https://gl.example/api/v4", TOKEN))


def test_ssh_uses_the_pinned_hosts_and_never_falls_back(tmp_path: Path):
    key, known = tmp_path / "id key", tmp_path / "known_hosts"
    access = GitAccess("https://gl.example/api/v4", TOKEN, key, known)
    ssh_project = replace(project(), ssh_url="git@gl.example:acme/handbook.git")
    assert access.url_for(ssh_project) == "git@gl.example:acme/handbook.git"
    with pytest.raises(SourceError, match="no SSH clone URL"):
        access.url_for(project())
    with pytest.raises(SourceError, match="not the configured forge"):
        access.url_for(replace(project(), ssh_url="git@evil.example:acme/handbook.git"))
    env = access.env()
    command = shlex.split(env["GIT_SSH_COMMAND"])
    assert command[:3] == ["ssh", "-i", str(key)]
    assert "StrictHostKeyChecking=yes" in command
    assert f"UserKnownHostsFile={known}" in command
    assert not any("extraHeader" in v or "glpat" in v for v in env.values())
