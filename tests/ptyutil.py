"""What the terminal tests (pexpect) share."""
from __future__ import annotations

import signal


def terminal_sigint() -> None:
    """``preexec_fn`` of a pexpect child: Ctrl-C at its terminal raises SIGINT in it, as at
    a real prompt. Without it the child inherits this process's disposition, and a test run
    started as a background job of a non-interactive shell ignores SIGINT (an ignored
    signal stays ignored across exec), so Python never installs its Ctrl-C handler."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
