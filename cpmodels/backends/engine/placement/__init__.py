"""Where the work runs: on this core, in processes (``processes.py``) or on a cluster
(``cluster.py``); ``scheduling.py`` splits the work into units and chooses among them."""
