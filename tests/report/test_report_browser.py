"""The HTML report opens in headless Chromium, and a screenshot shows the table and figures.

Skipped only where Chromium is absent (`.ci/run` installs Debian's ``chromium``).
"""

import shutil
import subprocess
import warnings

import numpy as np
import pytest

from bayesfair.datasets import load_assessment
from bayesfair.exceptions import SamplingWarning
from bayesfair.report.compare import compare

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]


@pytest.fixture(scope="module")
def report(tmp_path_factory, fit_kwargs):
    import matplotlib

    matplotlib.use("Agg")
    data = load_assessment("adult-sex", "MLP", n_labeled=100, random_seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SamplingWarning)  # small draws: plumbing only
        comp = compare(
            data,
            ["accuracy", "tpr"],
            models=("bb", "bc"),
            n_resamples=200,
            random_seed=0,
            fit_kwargs=dict(fit_kwargs),
            progressbar=False,
        )
    path = tmp_path_factory.mktemp("report") / "report.html"
    path.write_text(comp.to_html(), encoding="utf-8")
    return path


def _chromium(args, tmp_path):
    cmd = [CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def test_dom_has_table_and_embedded_figures(report, tmp_path):
    proc = _chromium(["--dump-dom", report.as_uri()], tmp_path)
    dom = proc.stdout
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert dom.count("<table") >= 3
    assert "Female" in dom and "Male" in dom
    assert dom.count('src="data:image/png;base64,') >= 3


def test_no_table_scrolls_sideways_in_a_1280_pixel_window(report, tmp_path):
    """At 1,280 pixels every table fits its box (a table wider than the page scrolls
    inside its own box: the one table of differences, 15 columns, did before it
    became two, and the calibration check's sentences did before they wrapped)."""

    overflowing, width = _overflowing(report, tmp_path)
    assert int(width) <= 1280
    assert overflowing.split() == []


def _overflowing(report, tmp_path) -> tuple[str, str]:
    """The classes of the tables that scroll sideways at 1,280 pixels, and the width."""
    import re

    probe = tmp_path / "probe.html"
    script = (
        "<script>window.addEventListener('load', () => document.body.setAttribute("
        "'data-overflow', [...document.querySelectorAll('.scroll')].filter("
        "b => b.scrollWidth > b.clientWidth).map(b => b.firstChild.className).join(' ')"
        " + '|' + window.innerWidth));</script></body>"
    )
    probe.write_text(report.read_text(encoding="utf-8").replace("</body>", script))
    proc = _chromium(["--window-size=1280,900", "--dump-dom", probe.as_uri()], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return re.search(r'data-overflow="([^"|]*)\|(\d+)"', proc.stdout).groups()


@pytest.fixture(scope="module")
def score_report(tmp_path_factory, fit_kwargs):
    import matplotlib

    matplotlib.use("Agg")
    data = load_assessment("adult-sex", "MLP", n_labeled=300, random_seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small draws and a calibration warning: plumbing
        comp = compare(
            data,
            ["tpr"],
            n_resamples=200,
            random_seed=0,
            fit_kwargs=dict(fit_kwargs),
            progressbar=False,
            score=True,
        )
    path = tmp_path_factory.mktemp("score") / "report.html"
    path.write_text(comp.to_html(), encoding="utf-8")
    return path


def test_the_score_view_renders_with_its_figures_and_fits_the_page(score_report, tmp_path):
    proc = _chromium(["--dump-dom", score_report.as_uri()], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    dom = proc.stdout
    assert "The score beyond one threshold" in dom
    for caption in ("ROC curves by group", "Gap in true positive rate", "Share of positives"):
        assert caption in dom
    overflowing, _ = _overflowing(score_report, tmp_path)
    assert "score" not in overflowing.split()


@pytest.mark.slow
def test_screenshot_shows_table_and_figures(report, tmp_path):
    from matplotlib.image import imread

    shot = tmp_path / "shot.png"
    proc = _chromium([f"--screenshot={shot}", "--window-size=1400,4000", report.as_uri()], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    img = imread(shot)[..., :3]
    assert img.shape[0] == 4000 and img.shape[1] == 1400
    # Table text: many dark pixels.
    dark = (img.max(axis=-1) < 0.3).mean()
    assert dark > 0.002
    # Figures: coloured pixels (the models' translucent blue/red histograms and bands);
    # the tables are black and grey on white, with no pixel of saturation above 0.25.
    saturation = img.max(axis=-1) - img.min(axis=-1)
    assert (saturation > 0.25).mean() > 0.002
    # Not one flat colour anywhere near the whole page.
    assert len(np.unique((img * 15).astype(int).reshape(-1, 3), axis=0)) > 50
    shutil.copy(shot, report.parent / "screenshot.png")


_MEASURE = r"""
<script>
window.addEventListener("load", () => {
  const out = {height: document.documentElement.scrollHeight, wrapped: []};
  for (const table of document.querySelectorAll("table.pairs, table.variance")) {
    for (const row of table.rows) {
      const one = Math.min(...[...row.cells].map((c) => c.getBoundingClientRect().height));
      for (const cell of row.cells) {
        // a cell taller than the row's shortest by more than half a line has wrapped
        if (cell.getBoundingClientRect().height > one * 1.5) out.wrapped.push(cell.textContent);
      }
    }
  }
  // the models' columns of the differences table, cut off by its scrolling box
  out.hidden = [];
  for (const table of document.querySelectorAll("table.pairs")) {
    const box = table.parentElement.getBoundingClientRect();
    for (const th of table.querySelectorAll("th")) {
      const text = th.textContent;
      const model = /^(BB|HBB|BC|RBC) /.test(text);
      if (model && th.getBoundingClientRect().right > box.right + 1) out.hidden.push(text);
    }
  }
  // words of the settings and provenance tables set on two lines (broken mid-word)
  out.broken = [];
  for (const td of document.querySelectorAll(".settings td, .provenance td")) {
    for (const node of td.childNodes) {
      if (node.nodeType !== Node.TEXT_NODE) continue;
      for (const m of node.textContent.matchAll(/\S+/g)) {
        if (m[0].length > 24) continue;  // a hash or a path may wrap anywhere
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        if (new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1) {
          out.broken.push(m[0]);
        }
      }
    }
  }
  const h2 = [...document.querySelectorAll("h2")].map((h) => h.textContent);
  out.first = h2[0];
  document.body.setAttribute("data-measure", JSON.stringify(out));
});
</script>
"""


def _measure(report, tmp_path, width=1000):
    import html
    import json
    import re

    probe = tmp_path / "probe.html"
    probe.write_text(report.read_text().replace("</body>", _MEASURE + "</body>"))
    proc = _chromium(
        [f"--window-size={width},900", "--virtual-time-budget=3000", "--dump-dom", probe.as_uri()],
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    found = re.search(r'data-measure="([^"]*)"', proc.stdout)
    assert found, "the measuring script did not run"
    return json.loads(html.unescape(found.group(1)))


def test_findings_come_first_and_no_interval_wraps(report, tmp_path):
    measured = _measure(report, tmp_path, width=900)  # a narrow window: tables must scroll
    assert measured["first"].startswith("Does the classifier treat the 2 groups alike")
    assert measured["wrapped"] == []


def test_at_1280_px_the_models_columns_show_and_no_word_breaks(report, tmp_path):
    """A laptop window: the differences table keeps the Bayesian columns (the main
    result) in view without scrolling, and no word of the settings or provenance is
    broken across lines (only hashes and paths may wrap anywhere)."""
    measured = _measure(report, tmp_path, width=1280)
    assert measured["hidden"] == []
    assert measured["broken"] == []


def test_full_page_screenshot(report, tmp_path):
    from matplotlib.image import imread

    height = _measure(report, tmp_path, width=1400)["height"]
    assert height > 1500  # the whole report, figures included
    shot = tmp_path / "full.png"
    proc = _chromium(
        [f"--screenshot={shot}", f"--window-size=1400,{height}", report.as_uri()], tmp_path
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    img = imread(shot)[..., :3]
    assert img.shape[0] == height
    # the provenance table closes the page: dark text in its last tenth
    assert (img[int(0.9 * height) :].max(axis=-1) < 0.3).mean() > 0.001
    # and the findings open it: dark text in the first tenth below the title
    assert (img[: int(0.1 * height)].max(axis=-1) < 0.3).mean() > 0.002


@pytest.fixture(scope="module")
def report32(tmp_path_factory):
    """The HTML report of 32 alike groups (12 labels and 2,000 unlabeled rows each)."""
    import matplotlib

    import bayesfair as bf
    from bayesfair.datasets.simulate import many_groups

    matplotlib.use("Agg")
    lab, unl = many_groups(32, 12, 2000, random_seed=3)
    data = bf.AssessmentData.from_frames(
        lab, unl.drop(columns=["label", "p"]), score="score", label="label", group="group"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small draws, a 12-label reference: plumbing only
        comp = compare(
            data,
            ["accuracy", "tpr", "fpr"],
            n_resamples=200,
            random_seed=0,
            fit_kwargs={"draws": 300, "tune": 300, "chains": 2},
            progressbar=False,
        )
    path = tmp_path_factory.mktemp("report32") / "report.html"
    path.write_text(comp.to_html(), encoding="utf-8")
    return path


def test_many_groups_report_leads_with_the_family_and_stays_small(report32, tmp_path):
    """32 groups: under 1 MB; the page opens with the family verdicts and one forest plot
    per metric; the 93 pairwise findings are folded (not shown until opened)."""
    assert report32.stat().st_size < 1_000_000
    proc = _chromium(["--dump-dom", report32.as_uri()], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    dom = proc.stdout
    assert dom.index("Family verdicts (32 groups;") < dom.index("Findings by pair (93 pairs")
    assert dom.count('src="data:image/png;base64,') == 3 + 1  # forest plots + variance
    assert "<details>" in dom and "<details open" not in dom
