"""`python -m cpmodels` runs the command-line interface."""

from cpmodels.cli import run

run()
