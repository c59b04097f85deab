"""The daily-puzzle web page: ``python -m cpmodels serve``."""
