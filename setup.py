"""The build copies the top-level specs/ (their one source) into the package as
cpmodels/bundled_specs/, so a wheel carries the bundled specs; everything else about the
package is in pyproject.toml."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


class BuildWithSpecs(build_py):
    """``build_py``, then the bundled specs (and the designs under specs/designs/)."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "cpmodels" / "bundled_specs"
        for source in sorted((HERE / "specs").rglob("*.yaml")):
            copy = target / source.relative_to(HERE / "specs")
            copy.parent.mkdir(parents=True, exist_ok=True)
            self.copy_file(str(source), str(copy))


setup(cmdclass={"build_py": BuildWithSpecs})
