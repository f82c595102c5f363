"""The web page: solve a hand, grade your own play, play sessions against the bots (``bench serve``)."""
