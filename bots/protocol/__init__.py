"""Bots in any language: a child process that speaks JSON lines (docs/protocol.md).

A ``ProtocolBot`` owns one child process at a time and everything else sees a ``Bot``.
The package is split as fastchess splits its engine process from its engine protocol:

- ``bots.protocol.spec``: how a bot is started, from its TOML file or ``cmd:PATH``;
- ``bots.protocol.transport``: the child process, its pipes read under deadlines, its
  standard error log, its process group and its end;
- ``bots.protocol.messages``: the protocol, the hello and the requests, every answer
  checked, and the faults a request can end in;
- ``bots.protocol.bot``: ``ProtocolBot``, which joins them, counts faults against
  their budgets and replaces a process that fell out of step.

The public names are importable from ``bots.protocol``.
"""

from bots.protocol.bot import ProtocolBot, ProtocolFactory, close_together, protocol_factory, trace_to
from bots.protocol.messages import BATCH_HANDS, BUDGETS, PLAIN, PROTOCOL, PROTOCOLS, ProtocolFault
from bots.protocol.spec import TIMEOUT_RANGE, ProtocolSpec, check_seconds, program_path
from bots.protocol.transport import LINE_LIMIT, ProtocolTrace, log_name, set_death_signal

__all__ = [
    "BATCH_HANDS", "BUDGETS", "LINE_LIMIT", "PLAIN", "PROTOCOL", "PROTOCOLS",
    "TIMEOUT_RANGE", "ProtocolBot", "ProtocolFactory", "ProtocolFault", "ProtocolSpec", "ProtocolTrace",
    "check_seconds", "close_together", "log_name", "program_path", "protocol_factory", "set_death_signal", "trace_to",
]  # fmt: skip
