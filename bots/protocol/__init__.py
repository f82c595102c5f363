"""Bots in any language: a child process that speaks JSON lines (docs/protocol.md).

The bot class and everything around it are in ``bots.protocol.bot``; its public names are
importable from here.
"""

from bots.protocol.bot import (
    BATCH_HANDS,
    BUDGETS,
    LINE_LIMIT,
    LOG_FILES,
    LOG_HEAD,
    LOG_TAIL,
    PLAIN,
    PROTOCOL,
    PROTOCOLS,
    QUIT_GRACE,
    TIMEOUT_RANGE,
    ProtocolBot,
    ProtocolFactory,
    ProtocolFault,
    ProtocolSpec,
    check_seconds,
    close_together,
    log_name,
    program_path,
    protocol_factory,
    set_death_signal,
)

__all__ = [
    "BATCH_HANDS", "BUDGETS", "LINE_LIMIT", "LOG_FILES", "LOG_HEAD", "LOG_TAIL", "PLAIN", "PROTOCOL", "PROTOCOLS",
    "QUIT_GRACE", "TIMEOUT_RANGE", "ProtocolBot", "ProtocolFactory", "ProtocolFault", "ProtocolSpec",
    "check_seconds", "close_together", "log_name", "program_path", "protocol_factory", "set_death_signal",
]  # fmt: skip
