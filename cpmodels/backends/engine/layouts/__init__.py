"""The compiled cover and its views: the arrays each search reads (``cover.py`` the
general layout, made by the compiled core, and the one-word layout; ``flat.py`` the cover
as the core reads it, ``reach.py`` the reach layout, ``regions.py`` the board's regions,
``tally.py`` what a tally counts by)."""
