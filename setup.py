"""Build hook: ship the bundled data of ``data/`` inside the wheel.

The canonical copy of the data lives in the repository's top-level ``data/``
folder (with its provenance and checksums). At build time it is copied into
``bayesfair/_data`` so that a non-editable install carries it; an editable
install reads ``data/`` directly (see ``bayesfair.datasets``).
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPyWithData(build_py):
    def run(self):
        super().run()
        source = Path(__file__).parent / "data"
        target = Path(self.build_lib) / "bayesfair" / "_data"
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(source, target)


setup(cmdclass={"build_py": BuildPyWithData})
