"""Run by every interpreter started with this directory on its path, before its main module.

With ``PHPBOTSCOUT_PAUSE_AT`` set to ``MODULE:FIFO``, the first import of MODULE waits until
the writer of FIFO closes it: a CLI process held at a known point of its start-up, where a
test can signal it (see ``tests.starting``).
"""

from __future__ import annotations

import os
import sys
from importlib.machinery import ModuleSpec
from types import ModuleType

_MODULE, _, _FIFO = os.environ.get("PHPBOTSCOUT_PAUSE_AT", "").partition(":")


class _Pause:
    def find_spec(
        self, name: str, path: object = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if name == _MODULE:
            sys.meta_path.remove(self)
            with open(_FIFO, "rb") as pipe:  # opening it tells the test we are here
                pipe.read()
        return None  # the import itself goes on as ever


if _MODULE:
    sys.meta_path.insert(0, _Pause())
