"""A run's results: the statistics of its records and the results.json they fill
(``summary``), the terminal tables and report.md (``render``), and the plots (``plots``)."""
