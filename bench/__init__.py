"""The bench: pits bots against each other and measures them."""
