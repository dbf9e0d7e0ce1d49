"""What a clone the build cannot read is reported as, whatever the system's error carries."""

import errno
import os
from pathlib import Path

import pytest

from bot.forge_refresh import unreadable_clone

CLONE = Path("clones") / "acme%2Fwidgets"


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (
            OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG), str(CLONE / ".git")),
            os.strerror(errno.ENAMETOOLONG),
        ),
        # As shutil.rmtree raises for a link: a message, and no error number to go with it.
        (OSError("Cannot call rmtree on a symbolic link"), "Cannot call rmtree on a symbolic link"),
    ],
    ids=["with-an-error-number", "with-a-message-only"],
)
def test_an_unreadable_clone_says_what_the_system_said(error: OSError, said: str):
    assert str(unreadable_clone("acme/widgets", CLONE, error)) == (
        f"the clone of acme/widgets at {CLONE} cannot be read any more ({said}), so nothing of "
        "it was read this run and its last index keeps answering. Let the user phpbotscout runs "
        "as read it, or remove it and the next build clones it again"
    )
