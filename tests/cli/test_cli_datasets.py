"""``bayesfair datasets`` (:mod:`bayesfair.cli.datasets`).

Named ``test_cli_datasets.py``: ``tests/datasets/test_datasets.py`` holds the name
``test_datasets`` (the test folders are not packages, so their files' names are unique).
"""

from bayesfair.cli import main


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
