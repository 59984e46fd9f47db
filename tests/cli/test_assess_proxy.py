"""``bayesfair assess --group-probabilities``: rows whose group is a proxy's probabilities."""

import json

import pytest
from click.testing import CliRunner

from bayesfair.cli import main
from bayesfair.datasets.simulate import proxy_audit

SMALL = ["--draws", "200", "--tune", "200", "--chains", "2", "--seed", "1"]


@pytest.fixture(scope="module")
def proxy_files(tmp_path_factory):
    audit = proxy_audit(k=2, n_labeled=400, n_unlabeled=3000, n_self_reported=250, random_seed=2)
    lab, unl = audit.frames()
    root = tmp_path_factory.mktemp("proxy")
    lab.to_csv(root / "labeled.csv", index=False)
    unl.to_parquet(root / "unlabeled.parquet")
    mapping = ",".join(f"{g}={c}" for g, c in audit.group_probabilities.items())
    return root, mapping


def test_help_shows_the_syntax():
    result = CliRunner().invoke(main, ["assess", "--help"])
    assert "--group-probabilities" in result.output and "White=p_white" in result.output


def test_assess_with_group_probabilities(proxy_files, tmp_path):
    root, mapping = proxy_files
    out = tmp_path / "report.json"
    result = CliRunner().invoke(
        main,
        [
            "assess",
            str(root / "labeled.csv"),
            "--unlabeled",
            str(root / "unlabeled.parquet"),
            "--group-probabilities",
            mapping,
            "--reference",
            "White",
            "--metrics",
            "selection_rate,tpr",
            "--out",
            str(out),
            *SMALL,
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert "3,150 more known by proxy" in " ".join(result.output.split())
    report = json.loads(out.read_text())
    assert report["settings"]["proxy"]["rows"] == 150 + 3000
    assert "self-reported" in json.dumps(report)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("White=p_0", "at least two"),
        ("White,Black=p_1", "not GROUP=COLUMN"),
        ("White=p_0,White=p_1", "twice"),
    ],
)
def test_a_bad_mapping_is_named(proxy_files, value, message):
    root, _ = proxy_files
    result = CliRunner().invoke(
        main, ["assess", str(root / "labeled.csv"), "--group-probabilities", value, *SMALL]
    )
    assert result.exit_code != 0 and message in result.output
