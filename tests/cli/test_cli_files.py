"""``bayesfair datasets`` (:mod:`bayesfair.cli.datasets`).

The command line's other tests are in the file of the module they exercise: ``test_files.py``
(reading files), ``test_assess.py``, ``test_demo.py``, ``test_plan.py``, ``test_suggest.py``,
``test_main.py``, ``test_errors.py`` and ``test_options.py``. This one stays here because
``tests/cli/test_datasets.py`` would share its module name with ``tests/datasets/test_datasets.py``
(the test folders are not packages).
"""

import pytest
from click.testing import CliRunner

from bayesfair.cli import main


@pytest.fixture
def runner():
    return CliRunner()


def test_datasets_fits_80_columns_and_names_what_demo_takes(runner):
    from bayesfair.datasets import get_score_set

    res = runner.invoke(main, ["datasets"], catch_exceptions=False)
    assert res.exit_code == 0
    lines = res.stdout.splitlines()
    assert max(map(len, lines)) <= 80
    section = lines[: lines.index("")]
    names = [line.split()[0] for line in section[2:]]
    assert names == [
        "adult-race",
        "adult-sex",
        "german-age",
        "german-sex",
        "compas-race",
        "compas-sex",
        "ricci-race",
    ]
    for name in names:  # exactly as demo --dataset accepts them
        assert get_score_set(name).name == name
    bad = runner.invoke(main, ["demo", "--dataset", "adult", "--quiet"])
    assert bad.exit_code == 2
    assert "'adult' is a raw data set" in bad.stderr and "adult-race" in bad.stderr
