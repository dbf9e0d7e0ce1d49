"""Clones of forge repositories under ``index.clones``: clone, fast-forward, clone again.

Each source has one clone holding its default branch at depth 1 (single branch) and the tag of
its latest release, also at depth 1, and no other tag. Later runs fast-forward it. A clone that
cannot be fast-forwarded (local changes, history rewritten upstream, the default branch moved,
a repository too damaged to open) is deleted and cloned again; a failure to *reach* the forge
keeps it, since cloning again would only spend more of the same rate limit.

A new clone is made beside the old one and swapped in only once complete, so a crash or a
``kill -9`` part-way leaves either the old clone or nothing, never half of one. Leftovers of
such a run are removed by ``prepare``.

One process at a time works in the directory: ``prepare`` takes an exclusive lock on its
``+lock`` file (``flock``, released by ``release`` or when the process ends, however it ends),
waiting a while for another process (an index build, or serve refreshing) to finish first.
Without it, the sweep of leftovers would delete the other process's clone in progress.

Everything here is blocking (git subprocesses); the refresh runs it in threads, at most two at
once. A stopping run ends the git commands talking to the forge at once (``stop``) rather than
waiting for a clone or fetch to finish (``bot.git_process``).
"""

from __future__ import annotations

import fcntl
import logging
import os
import re
import shutil
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, unquote

import git

from bot.errors import ForgeError, RateLimited, SourceError
from bot.forge.origin import ssh_endpoint
from bot.git_process import GitChildren

log = logging.getLogger(__name__)

# git's own words for "the other end could not be reached" (as opposed to a local problem).
_UNREACHABLE = (
    "unable to access",
    "could not read from remote repository",
    "could not resolve host",
    "connection refused",
    "connection timed out",
    "operation timed out",
    "failed to connect",
    "the requested url returned error",
    "early eof",
    "the remote end hung up",
    "rpc failed",
)
# ssh's words when the forge accepts none of its keys, when the forge's host key is not pinned,
# and when another key is pinned for it. git passes them on from ssh's stderr; its own words,
# "could not read from remote repository", are the same for every one.
_SSH_KEY_REFUSED = "permission denied (publickey"
_SSH_HOST_KEY = "host key verification failed"
_SSH_HOST_KEY_CHANGED = "has changed and you have requested strict checking"
# git's words for an HTTP answer it would not use, and for a credential it was refused.
_HTTP_STATUS = re.compile(r"returned error: (\d{3})")
_NO_CREDENTIALS = ("could not read username", "could not read password", "authentication failed")
# "+" never appears in a clone's own directory name (quote() escapes it), so these can never
# be mistaken for a source's clone.
_TEMP_PREFIXES = ("+tmp-", "+old-")
_LOCK_FILE = "+lock"
LOCK_WAIT = 300.0  # seconds to wait for another process working in the same clones directory
# A git command that talks to the forge gives up once the transfer stays under LOW_SPEED_LIMIT
# bytes a second for LOW_SPEED_TIME seconds (a stalled server, like the API's 30 s timeout),
# and is killed, whatever it is doing, after GIT_TIMEOUT seconds in all.
LOW_SPEED_LIMIT = 1000
LOW_SPEED_TIME = 30
GIT_TIMEOUT = 600.0
# git's words for a transfer it gave up on as too slow.
_STALLED = ("operation too slow", "curl 28")


class ForgeUnreachable(ForgeError):
    """git could not reach the forge, or it refused; the clone, if any, is kept as it was."""


class _CannotFastForward(Exception):
    """The clone has to be made again, for the reason given."""


@dataclass(frozen=True, slots=True)
class RemoteRefs:
    """What the forge's repository advertises: the branch head and each tag's commit."""

    head: str | None
    tags: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class CloneState:
    """A clone after ``sync``: where it is, its commits, and what was done to it."""

    path: Path
    branch_commit: str
    release_commit: str | None
    action: str  # "up to date", "fast-forwarded", "cloned" or "cloned again (<why>)"


def _said(exc: git.exc.GitCommandError) -> str:
    """What git (and ssh under it) printed, lower-cased, for matching against known messages."""
    return f"{exc.stderr} {exc.stdout}".lower()


def _is_unreachable(exc: git.exc.GitCommandError) -> bool:
    return any(marker in _said(exc) for marker in _UNREACHABLE)


def _refused(exc: git.exc.GitCommandError) -> ForgeError | None:
    """The forge's refusal or failure as an error that says what to do, if git reports one."""
    text = _said(exc)
    found = _HTTP_STATUS.search(text)
    status = int(found.group(1)) if found else None
    if status == 401 or any(marker in text for marker in _NO_CREDENTIALS):
        return ForgeUnreachable(
            "GitLab did not accept git's credentials for the repository (HTTP 401): "
            "GITLAB_TOKEN is missing, wrong or expired. Set GITLAB_TOKEN, or renew the token."
        )
    if status == 403:
        return ForgeUnreachable(
            "GitLab forbade git to read the repository (HTTP 403): the token lacks the "
            "read_repository scope, or the project forbids this token. Give GITLAB_TOKEN the "
            "read_repository scope, or a token with access."
        )
    if status == 429:
        return RateLimited(
            "GitLab rate-limited git (HTTP 429). The run stopped; everything indexed before "
            "the limit is kept. Run 'python -m bot.cli index build' again later."
        )
    if status is not None and status >= 500:
        return ForgeUnreachable(
            f"GitLab failed to serve the repository (HTTP {status}); the clone, if any, is "
            "kept. Try again later."
        )
    return None


def _ssh_names(host: str, port: int) -> tuple[str, str]:
    """The host as ssh and index.ssh.known_hosts name it, and the ssh-keyscan that prints its keys.

    Off port 22 the host is ``[host]:port``; the URL's user (or a password) is never shown.
    """
    if port == 22:
        return host, f"ssh-keyscan {host}"
    return f"[{host}]:{port}", f"ssh-keyscan -p {port} {host}"


def _ssh_refused(exc: git.exc.GitCommandError, url: str) -> ForgeUnreachable | None:
    """The refusal ssh reported, of the key or of the host, naming the host and what to mend.

    With several forges, or a jump host on the way, the setting alone does not say which entry.
    """
    where = ssh_endpoint(url)
    if where is None:  # not an SSH address: whatever was said, ssh did not say it
        return None
    text = _said(exc)
    host, keyscan = _ssh_names(*where)
    if _SSH_KEY_REFUSED in text:
        return ForgeUnreachable(
            f"GitLab at {host} refused the SSH key (Permission denied (publickey)): the key in "
            "index.ssh.key may not read this project. Add its public key to a GitLab user who "
            "can read the project, or as a deploy key of the project, or set index.ssh.key to a "
            "key that may."
        )
    if _SSH_HOST_KEY_CHANGED in text:
        return ForgeUnreachable(
            f"ssh refused the forge {host} (Host key verification failed): the host key it sent "
            f"no longer matches the one pinned for {host} in index.ssh.known_hosts. Check the key "
            "against the fingerprints GitLab publishes: if GitLab changed its host keys, replace "
            f"the line for {host} in index.ssh.known_hosts; if not, the connection may be "
            "intercepted, so leave it."
        )
    if _SSH_HOST_KEY in text:
        return ForgeUnreachable(
            f"ssh refused the forge {host} (Host key verification failed): "
            f"index.ssh.known_hosts pins no host key for it. Add the forge's host key for {host} "
            f"to index.ssh.known_hosts ('{keyscan}' prints it; check it against the fingerprints "
            "GitLab publishes)."
        )
    return None


def _forge_failure(exc: git.exc.GitCommandError, url: str) -> ForgeError | None:
    """The forge refusing, failing or out of reach, if that is why git failed."""
    if (refused := _refused(exc)) is not None:
        return refused
    if (refused := _ssh_refused(exc, url)) is not None:
        return refused
    if _is_unreachable(exc):
        return ForgeUnreachable(f"cannot reach the repository: {_message(exc)}")
    return None


def _message(exc: git.exc.GitCommandError) -> str:
    lines = [line.strip() for line in str(exc.stderr or "").splitlines() if line.strip()]
    text = "; ".join(line.removeprefix("stderr: ").strip("'") for line in lines[-3:])
    return text or f"git exited with {exc.status}"


class Clones:
    """The directory of clones, and the git operations on them."""

    def __init__(
        self,
        root: Path,
        env: Mapping[str, str],
        *,
        timeout: float | None = None,
        low_speed_time: int | None = None,
        lock_wait: float | None = None,
    ) -> None:
        self.root = root
        self._env = dict(env)
        self._timeout = GIT_TIMEOUT if timeout is None else timeout
        self._low_speed_time = LOW_SPEED_TIME if low_speed_time is None else low_speed_time
        self._lock_wait = LOCK_WAIT if lock_wait is None else lock_wait
        self._lock: int | None = None
        self._children = GitChildren()

    # -- layout ------------------------------------------------------------------------------

    @property
    def lock_wait(self) -> float:
        """How long a run waits for another process to let go of the directory, in seconds."""
        return self._lock_wait

    def take(self) -> bool:
        """Take the directory for this process unless another holds it; whether it is held.

        It never waits (the lock is asked for without blocking), so a caller can wait its own
        way: ``GitLabSources`` waits on its event loop, where the wait can be cancelled.

        Raises:
            SourceError: the directory cannot be made, written or locked.
        """
        if self._lock is not None:
            return True
        try:
            self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
            os.chmod(self.root, 0o700)  # mkdir's mode is masked by umask, skipped if it exists
            fd = os.open(self.root / _LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise self._unusable(exc) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self._lock = fd
        return True

    def _unusable(self, exc: OSError) -> SourceError:
        """The error for a directory this process cannot make, enter or lock."""
        return SourceError(
            f"The clones directory {self.root} (index.clones) cannot be used ({exc}). Nothing "
            "was refreshed. Make it a directory the user running phpbotscout can write, or set "
            "index.clones to one."
        )

    def in_use(self) -> ForgeError:
        """The error for a directory another process kept past ``lock_wait``."""
        return ForgeError(
            f"The clones in {self.root} are in use by another process (an index build, or "
            f"serve refreshing), which has not finished within {self._lock_wait:.0f} s. "
            "Nothing was changed; run the command again when that has finished."
        )

    def prepare(self) -> None:
        """Take the directory (see ``take``) and remove what an interrupted run left in it.

        Raises:
            ForgeError: another process holds the directory.
            SourceError: the directory cannot be made, written or locked.
        """
        if not self.take():
            raise self.in_use()
        for entry in self.root.iterdir():
            if entry.name.startswith(_TEMP_PREFIXES):
                shutil.rmtree(entry, ignore_errors=True)

    def release(self) -> None:
        """Let another process work in the directory (the end of the process does as well)."""
        if self._lock is not None:
            fd, self._lock = self._lock, None
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def path_for(self, name: str) -> Path:
        """The clone directory of source ``name`` (its path, quoted into one component)."""
        return self.root / quote(name, safe="")

    def names(self) -> set[str]:
        """The sources that have a clone on disk."""
        if not self.root.is_dir():
            return set()
        return {
            unquote(p.name)
            for p in self.root.iterdir()
            if p.is_dir() and not p.name.startswith(_TEMP_PREFIXES)
        }

    def remove(self, name: str) -> bool:
        """Delete a source's clone; return whether there was one.

        Raises:
            SourceError: it, or some of it, could not be deleted; what to do.
        """
        path = self.path_for(name)
        try:
            if not path.exists():
                return False
            shutil.rmtree(path)
        except OSError as exc:  # some have no strerror ("Cannot call rmtree on a symbolic link")
            raise SourceError(
                f"the clone of {name} at {path} could not be deleted ({exc.strerror or exc}). "
                "Nothing reads it any more, so the index is as it would be without it; delete "
                "it by hand, or let the user phpbotscout runs delete it"
            ) from None
        log.info("deleted the clone of %s", name)
        return True

    def remove_each(self, names: Iterable[str]) -> tuple[list[str], list[str]]:
        """Delete the clones of ``names``: the names whose clone went, and why each other would not.

        A clone that cannot be deleted is no reason to stop the run: no source reads it, so the
        index is right without it, and the run goes on to refresh every other source.
        """
        deleted: list[str] = []
        problems: list[str] = []
        for name in names:
            try:
                if self.remove(name):
                    deleted.append(name)
            except SourceError as exc:
                log.warning("%s", exc)
                problems.append(str(exc))
        return deleted, problems

    # -- talking to the forge ----------------------------------------------------------------

    def _git(self, cwd: Path | None, *args: str) -> str:
        """Run a git command that talks to the forge, giving up on a stall or after a while.

        Raises:
            ForgeUnreachable: the transfer stalled, or the command ran out of time.
            GitStopped: the run is stopping (``stop``).
            git.exc.GitCommandError: git failed otherwise.
        """
        stall = (
            f"http.lowSpeedLimit={LOW_SPEED_LIMIT}",
            f"http.lowSpeedTime={self._low_speed_time}",
        )
        command = ["git", "-c", stall[0], "-c", stall[1], *args]
        verb = next((a for a in args if a in ("ls-remote", "fetch", "clone")), "git")
        # git's messages in English whatever the machine's locale: they are read below.
        env = {**os.environ, "LANGUAGE": "C", "LC_ALL": "C", **self._env}
        ran = self._children.run(command, cwd=cwd, env=env, timeout=self._timeout)
        if ran.timed_out:
            log.warning("git %s was killed after %g s without finishing", verb, self._timeout)
            raise ForgeUnreachable(
                f"git {verb} did not finish within {self._timeout:g} s and was stopped; the "
                "clone, if any, is kept. Try again later."
            )
        if ran.status != 0:
            failed = git.exc.GitCommandError(
                command, ran.status, ran.stderr.rstrip("\n"), ran.stdout
            )
            if any(marker in _said(failed) for marker in _STALLED):
                log.warning(
                    "git %s gave up: the forge sent under %d bytes/s for %d s",
                    verb,
                    LOW_SPEED_LIMIT,
                    self._low_speed_time,
                )
                raise ForgeUnreachable(
                    f"the repository stalled: GitLab sent under {LOW_SPEED_LIMIT} bytes/s for "
                    f"{self._low_speed_time} s, so git {verb} gave up; the clone, if any, is "
                    "kept. Try again later."
                )
            raise failed
        return ran.stdout.removesuffix("\n")

    def stop(self, *, kill: bool = False) -> int:
        """End the git commands talking to the forge for this run, and start no more.

        SIGTERM to each command and what it started, or SIGKILL with ``kill``; a clone ended
        part-way is removed by the thread that ran it, and an existing clone is left as it
        was (a fetch updates its refs only once complete). Returns how many were running.
        """
        return self._children.stop(kill=kill)

    def ls_remote(self, url: str, branch: str) -> RemoteRefs:
        """The branch head and tags, in one round trip (protocol v0 advertises everything).

        Raises:
            ForgeUnreachable: the forge could not be reached.
            SourceError: git refused for another reason.
        """
        try:
            out = self._git(
                None, "-c", "protocol.version=0", "ls-remote", url, f"refs/heads/{branch}",
                "refs/tags/*",
            )  # fmt: skip
        except git.exc.GitCommandError as exc:
            if (failure := _forge_failure(exc, url)) is not None:
                raise failure from None
            raise SourceError(f"listing the repository's refs failed: {_message(exc)}") from None
        head: str | None = None
        tags: dict[str, str] = {}
        for line in out.splitlines():
            sha, _, ref = line.partition("\t")
            if ref == f"refs/heads/{branch}":
                head = sha
            elif ref.startswith("refs/tags/"):
                name = ref.removeprefix("refs/tags/")
                if name.endswith("^{}"):
                    tags[name[:-3]] = sha  # the peeled commit wins over the tag object
                else:
                    tags.setdefault(name, sha)
        return RemoteRefs(head, tags)

    def sync(
        self,
        name: str,
        url: str,
        branch: str,
        release_tag: str | None,
        release_commit: str | None = None,
        *,
        keep_tags: bool = False,
    ) -> CloneState:
        """Bring the clone of ``name`` up to date with the forge, cloning it if needed.

        Args:
            name: the source's name.
            url: the clone URL (already checked by the transport).
            branch: the default branch.
            release_tag: the tag to hold: the latest release's, or ``None`` for no release.
            release_commit: the commit the forge advertises for ``release_tag``; a local tag
                already there is not fetched again.
            keep_tags: the release could not be looked up: delete no tag.

        Raises:
            ForgeUnreachable: the forge could not be reached (an existing clone is kept).
            SourceError: the repository could not be cloned.
        """
        path = self.path_for(name)
        why = "no clone yet"
        if path.exists():
            try:
                return self._update(
                    path, url, branch, (release_tag, release_commit), keep_tags=keep_tags
                )
            except _CannotFastForward as exc:
                why = str(exc)
                log.info("the clone of %s cannot be fast-forwarded (%s): cloning again", name, why)
        state = self._clone(name, url, branch, release_tag)
        action = "cloned" if why == "no clone yet" else f"cloned again ({why})"
        return CloneState(state.path, state.branch_commit, state.release_commit, action)

    def clone_again(
        self, name: str, url: str, branch: str, release_tag: str | None, why: str
    ) -> CloneState:
        """Clone ``name`` afresh beside its clone, and swap the new one in once it is whole.

        For a clone found damaged only once read: a fetch would not repair it. Until the new
        clone is complete the old one stays where it is, so a clone that fails leaves it as it
        was, and a run stopped part-way leaves one or the other, never half of one.

        Raises:
            ForgeUnreachable: the forge could not be reached (the old clone is kept).
            SourceError: the repository could not be cloned (the old clone is kept).
            OSError: the new clone could not be put in the old one's place (which is kept).
        """
        state = self._clone(name, url, branch, release_tag)
        return CloneState(
            state.path, state.branch_commit, state.release_commit, f"cloned again ({why})"
        )

    def _update(
        self,
        path: Path,
        url: str,
        branch: str,
        release: tuple[str | None, str | None],
        *,
        keep_tags: bool,
    ) -> CloneState:
        try:
            repo = git.Repo(path)
        except (git.exc.InvalidGitRepositoryError, git.exc.NoSuchPathError) as exc:
            raise _CannotFastForward(f"not a usable repository: {exc}") from None
        try:
            return self._update_repo(repo, url, branch, release, keep_tags=keep_tags)
        except git.exc.GitCommandError as exc:
            if (failure := _forge_failure(exc, url)) is not None:
                raise failure from None
            raise _CannotFastForward(f"git failed: {_message(exc)}") from None
        except (ValueError, TypeError, OSError, git.exc.GitError) as exc:
            raise _CannotFastForward(f"the repository is damaged: {exc}") from None
        finally:
            repo.close()

    def _update_repo(
        self,
        repo: git.Repo,
        url: str,
        branch: str,
        release: tuple[str | None, str | None],
        *,
        keep_tags: bool,
    ) -> CloneState:
        cwd = Path(repo.working_dir)
        remote = f"refs/remotes/origin/{branch}"
        if repo.git.config("--get", "remote.origin.url") != url:
            raise _CannotFastForward("its remote URL changed")
        current = repo.git.symbolic_ref("--quiet", "--short", "HEAD")
        if current != branch:
            raise _CannotFastForward(f"the default branch moved from {current} to {branch}")
        if repo.git.status("--porcelain", "--untracked-files=all"):
            raise _CannotFastForward("it has local changes")
        old = repo.git.rev_parse("--verify", remote)
        if repo.git.rev_parse("--verify", "HEAD") != old:
            raise _CannotFastForward("it has local commits")

        # No --depth: the server sends only the commits since ``old``, so the ancestry check
        # below is real. A depth-1 fetch would hide the link and every move would look like
        # a rewrite.
        self._git(cwd, "fetch", "--quiet", "--no-tags", "origin", f"+refs/heads/{branch}:{remote}")
        new = repo.git.rev_parse("--verify", remote)
        action = "up to date"
        if new != old:
            try:
                repo.git.merge_base("--is-ancestor", old, new)
            except git.exc.GitCommandError:
                raise _CannotFastForward("its history was rewritten upstream") from None
            repo.git.merge("--ff-only", "--quiet", remote)
            action = "fast-forwarded"
        release_commit = self._settle_tags(cwd, repo, *release, keep_tags=keep_tags)
        return CloneState(cwd, new, release_commit, action)

    def _settle_tags(
        self,
        cwd: Path,
        repo: git.Repo,
        release_tag: str | None,
        expected: str | None = None,
        *,
        keep_tags: bool,
    ) -> str | None:
        """Fetch the release tag if missing; keep no other tag (unless told to keep them)."""
        tags = set(repo.git.tag("--list").split())
        if release_tag is not None and not (
            release_tag in tags
            and expected is not None
            and self._tag_commit(repo, release_tag) == expected
        ):
            self._git(
                cwd, "fetch", "--quiet", "--depth", "1", "--no-tags", "origin",
                f"+refs/tags/{release_tag}:refs/tags/{release_tag}",
            )  # fmt: skip
        if not keep_tags:
            stale = sorted(t for t in tags if t != release_tag)
            if stale:
                repo.git.tag("-d", *stale)
        return None if release_tag is None else self._tag_commit(repo, release_tag)

    @staticmethod
    def _tag_commit(repo: git.Repo, tag: str) -> str:
        return str(repo.git.rev_parse("--verify", f"refs/tags/{tag}^{{commit}}"))

    def _clone(self, name: str, url: str, branch: str, release_tag: str | None) -> CloneState:
        path = self.path_for(name)
        temp = self.root / f"+tmp-{uuid.uuid4().hex[:12]}"
        try:
            self._git(
                None, "clone", "--quiet", "--depth", "1", "--single-branch", "--no-tags",
                "--branch", branch, url, str(temp),
            )  # fmt: skip
            repo = git.Repo(temp)
            try:
                branch_commit = str(repo.git.rev_parse("--verify", "HEAD"))
                release_commit = self._settle_tags(temp, repo, release_tag, keep_tags=False)
            finally:
                repo.close()
        except git.exc.GitCommandError as exc:
            shutil.rmtree(temp, ignore_errors=True)
            if (failure := _forge_failure(exc, url)) is not None:
                raise failure from None
            raise SourceError(f"cloning failed: {_message(exc)}") from None
        except BaseException:
            shutil.rmtree(temp, ignore_errors=True)
            raise
        if path.exists():
            old = self.root / f"+old-{uuid.uuid4().hex[:12]}"
            path.rename(old)
            try:
                temp.rename(path)
            except BaseException:  # the old clone goes back where it was, as if never cloned
                old.rename(path)
                shutil.rmtree(temp, ignore_errors=True)
                raise
            shutil.rmtree(old, ignore_errors=True)
        else:
            temp.rename(path)
        return CloneState(path, branch_commit, release_commit, "cloned")
