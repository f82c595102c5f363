"""Versions of installed packages, as the documents of a run record them."""

from __future__ import annotations

from importlib import metadata


def installed_version(package: str) -> str | None:
    """The version of an installed distribution; None when it is not installed.

    >>> installed_version("numpy") is not None, installed_version("no-such-distribution")
    (True, None)
    """
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None
