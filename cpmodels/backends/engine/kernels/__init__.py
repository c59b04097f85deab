"""Thin wrappers that hand a layout's arrays to the compiled core, one module per search
family (``general.py`` the N-word searches, ``words.py`` two words, ``one_word.py``,
``reach.py``, ``bit_cover.py``, ``links.py``, ``difficulty.py``), and the memo table
they share (``memo.py``)."""
