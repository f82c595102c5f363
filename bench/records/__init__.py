"""What a run's records are and how they are checked: the deals they are of (``deals``), a
play and the two forms of a record (``plays``), the one semantic check of records wherever
they are read back (``check``), and the JSON Schemas of the documents (``schema``,
``schemas/``). It imports nothing else of the bench (tests/test_layers.py)."""
