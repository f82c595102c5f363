"""Bots: strategies that arrange 13 cards."""
