"""Data files that ship with the bots (trained tables)."""
