"""Where the work runs: in this process, in worker processes (``processes.py``) or on a
Dask cluster (``cluster.py``); ``scheduling.py`` cuts the work into units and chooses."""

CLUSTER_ENV = "CPMODELS_CLUSTER"  # the cluster address when --cluster is not given
