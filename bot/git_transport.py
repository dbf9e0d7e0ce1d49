"""How git reaches the forge: which clone URL, and what credential goes with it.

Two transports, never mixed:

* **SSH**, when ``index.ssh.key`` is set: every clone and fetch uses the project's SSH URL with
  that key, against the host keys pinned in ``index.ssh.known_hosts`` (strict checking, no
  prompt). A project with no SSH URL on the configured forge fails; nothing falls back to HTTPS.
* **HTTPS** otherwise. With ``GITLAB_TOKEN`` the clone URL the API reported is checked first: it
  must have the configured forge's scheme, host and port, and travel encrypted (plain http only
  to a loopback host). Only then is the token attached, as an ``Authorization: Basic`` header
  that git sends only to URLs under the forge's root (``http.<root>.extraHeader``), with
  redirects refused. It travels in the git process's environment, never in a URL, an argument
  list or a file on disk. With no token, nothing is attached and nothing is checked.
"""

from __future__ import annotations

import base64
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bot.config import Secret
from bot.errors import SourceError
from bot.forge.base import Project
from bot.forge.origin import forge_root, origin, plain_text_allowed, same_origin, ssh_host

# Git user name for token authentication over HTTPS: GitLab accepts any non-empty name and
# documents this one.
TOKEN_USER = "oauth2"  # noqa: S105 - a user name, not a password


def _config_env(entries: list[tuple[str, str]]) -> dict[str, str]:
    """Pass git configuration through the environment (git 2.31+), never through argv."""
    env = {"GIT_CONFIG_COUNT": str(len(entries))}
    for i, (key, value) in enumerate(entries):
        env[f"GIT_CONFIG_KEY_{i}"] = key
        env[f"GIT_CONFIG_VALUE_{i}"] = value
    return env


@dataclass(frozen=True, slots=True)
class GitAccess:
    """The transport policy: picks and checks clone URLs, and builds git's environment."""

    api_url: str
    token: Secret | None = None
    ssh_key: Path | None = None
    ssh_known_hosts: Path | None = None
    _root: str = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_root", forge_root(self.api_url))

    @property
    def kind(self) -> str:
        """``ssh`` or ``https``."""
        return "ssh" if self.ssh_key is not None else "https"

    def url_for(self, project: Project) -> str:
        """The URL to clone ``project`` from, checked before any credential goes with it.

        Raises:
            SourceError: no usable URL for this transport, or the URL leaves the forge.
        """
        if self.ssh_key is not None:
            return self._ssh_url(project)
        url = project.http_url
        if not url:
            raise SourceError(f"GitLab reports no HTTPS clone URL for {project.path}")
        if self.token is None:
            return url  # nothing is sent, so there is nothing to protect
        if not same_origin(url, self._root):
            where = origin(url)
            shown = f"{where[0]}://{where[1]}:{where[2]}" if where else url
            raise SourceError(
                f"the clone URL GitLab reports for {project.path} points at {shown}, not the "
                f"configured forge {self._root}; it was not fetched and no token was sent"
            )
        if not plain_text_allowed(url):
            raise SourceError(
                f"the clone URL for {project.path} is plain http; the token is never sent "
                "unencrypted, so it was not fetched"
            )
        return url

    def _ssh_url(self, project: Project) -> str:
        url = project.ssh_url
        forge = origin(self.api_url)
        if not url:
            raise SourceError(
                f"GitLab reports no SSH clone URL for {project.path}; with index.ssh.key set, "
                "clones go over SSH only"
            )
        host = ssh_host(url)
        if forge is None or host != forge[1]:
            raise SourceError(
                f"the SSH clone URL for {project.path} names {host or 'no host'}, not the "
                f"configured forge {forge[1] if forge else self.api_url}; it was not fetched"
            )
        return url

    def env(self) -> Mapping[str, str]:
        """Environment for every git command that talks to the forge."""
        base = {"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": ""}
        # No credential helper of the machine's may add anything to our requests.
        entries = [("credential.helper", "")]
        if self.ssh_key is not None:
            command = [
                "ssh",
                "-i",
                str(self.ssh_key),
                "-o",
                "IdentitiesOnly=yes",
                "-o",
                "BatchMode=yes",
                "-o",
                "StrictHostKeyChecking=yes",
                "-o",
                f"UserKnownHostsFile={self.ssh_known_hosts}",
            ]
            base["GIT_SSH_COMMAND"] = shlex.join(command)
        elif self.token is not None:
            basic = base64.b64encode(f"{TOKEN_USER}:{self.token.reveal()}".encode()).decode()
            entries.append((f"http.{self._root}.extraHeader", f"Authorization: Basic {basic}"))
            entries.append(("http.followRedirects", "false"))
        return {**base, **_config_env(entries)}

    def __repr__(self) -> str:
        return f"GitAccess(kind={self.kind!r}, forge={self._root!r})"
