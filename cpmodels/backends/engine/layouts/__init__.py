"""The compiled cover and its views: the arrays each search reads (``cover.py`` the
general layout and the one-word layout, ``reach.py`` the reach layout, ``regions.py`` the
board's regions, ``tally.py`` what a tally counts by)."""
