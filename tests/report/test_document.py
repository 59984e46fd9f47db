"""HTML, JSON and Markdown reports of a real comparison (bundled Adult data, small draws)."""

import base64
import json
import math
import re
import warnings
from html import escape as html_escape

import matplotlib

matplotlib.use("Agg")

import pytest

import bayesfair as bf
from bayesfair.report.document import (
    comparison_html,
    comparison_json,
    comparison_markdown,
    comparison_sections,
)


@pytest.fixture(scope="module")
def html(comparison):
    return comparison_html(comparison)


def test_html_tables_settings_and_sizes(html, comparison):
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    assert "<style>" in html and "<link" not in html and "<script" not in html  # self-contained
    assert '<table class="pairs">' in html and '<table class="variance">' in html
    assert "<th>BC P(|Δ|&lt;ε)</th>" in html and "<th>Newcombe</th>" in html
    assert "<td>Female − Male</td>" in html
    # group sizes
    sizes = comparison.groups
    assert f"<td>Female</td><td>{sizes.loc['Female', 'n_labeled']}</td>" in html
    assert f"<td>{sizes.loc['Male', 'n_unlabeled']}</td>" in html
    # threshold, reference group, ε and priors
    assert "<p>Threshold 0.5 (predicted positive when score ≥ threshold)" in html
    assert "reference group &#x27;Male&#x27;" in html or "reference group 'Male'" in html
    assert "ε = 0.02" in html
    assert "<td>prior of BC</td><td>calibration map σ(c + a log s − b log(1 − s)) per group" in html
    assert "CalibrationPriors(" not in html and "SeedSequence(" not in html  # words, not reprs
    assert "<td>prior of BB</td><td>each group's confusion cells ~ Dirichlet(1, 1, 1, 1)" in html


def test_html_diagnostics_per_model(html, comparison):
    section = html.split("<summary>Sampler diagnostics</summary>", 1)[1]
    section = section.split("</table>", 1)[0]
    assert "<th>max_r_hat</th><th>min_ess_bulk</th><th>divergences</th>" in section
    diag = comparison.posteriors["bc"].diagnostics()
    rhat = f"{diag['r_hat'].max():.3f}"
    assert re.search(rf"<td>bc</td><td>nuts</td><td>2</td><td>200</td><td>{rhat}</td>", section)
    assert "<td>bb</td><td>exact</td>" in section


def test_html_plain_words(html, comparison):
    r = comparison.pairs.iloc[0]
    p = r["bc_prob_practically_fair"]
    assert (
        "Given the data and the BC model, the probability that Female's accuracy is within "
        f"±0.02 of Male's is {p:.2f}"
    ) in html
    up = comparison.posteriors["bb"].prob_positive("accuracy", "Female", "Male")
    assert f"the probability that it is higher is {up:.2f}." in html
    # one sentence per pair and model
    assert html.count("<li>Given the data and the") == 2 * 2


def test_html_embeds_png_figures(html):
    images = re.findall(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html)
    # Δ per pair (2), forest, variance forest, calibration maps (a bc fit), calibration
    # within groups (the labeled rows' reliability curves)
    assert len(images) == 6
    for b64 in images:
        assert base64.b64decode(b64).startswith(b"\x89PNG\r\n\x1a\n")


def test_html_without_figures(comparison):
    page = comparison_html(comparison, figures=False)
    assert "data:image/png" not in page
    assert '<table class="pairs">' in page


def test_the_page_takes_no_data(comparison):
    """The figures read the fits' stored examples: the page has no ``data`` argument."""
    with pytest.raises(TypeError, match="data"):
        comparison_html(comparison, figures=False, data=None)
    with pytest.raises(TypeError, match="data"):
        comparison.to_html(figures=False, data=None)


def test_json_round_trips_with_nulls(comparison):
    doc = json.loads(comparison_json(comparison))
    assert set(doc) == {
        "answer",
        "family_findings",
        "group_findings",
        "family_view",
        "group_view",
        "findings",
        "provenance",
        "settings",
        "groups",
        "pairs",
        "variance",
        "diagnostics",
        "notes",
        "plain_words",
        "disagreements",
        "calibration",
        "calibration_check",
        "metric_clusters",
        "score",
    }
    assert doc["metric_clusters"] == []  # compare(..., clusters=False)
    assert doc["score"] == {"auc": [], "sweep": []}  # compare(..., score=False)
    assert doc["settings"]["reference"] == "Male" and doc["settings"]["epsilon"] == 0.02
    assert len(doc["pairs"]) == len(comparison.pairs)
    first = doc["pairs"][0]
    assert first["bc_prob_practically_fair"] == pytest.approx(
        comparison.pairs.iloc[0]["bc_prob_practically_fair"]
    )
    assert [d["model"] for d in doc["diagnostics"]] == ["bb", "bc"]
    assert doc["groups"][0] == {
        "group": "Female",
        "n_labeled": int(comparison.groups.loc["Female", "n_labeled"]),
        "n_unlabeled": int(comparison.groups.loc["Female", "n_unlabeled"]),
    }
    # NaN becomes null: a comparison with an undefined value still gives strict JSON
    pairs = comparison.pairs.copy()
    pairs.loc[0, "bernstein_lower"] = math.nan
    patched = type(comparison)(
        pairs=pairs,
        variance=comparison.variance,
        groups=comparison.groups,
        settings=comparison.settings,
        posteriors=comparison.posteriors,
    )
    text = comparison_json(patched)
    assert "NaN" not in text
    assert json.loads(text)["pairs"][0]["bernstein_lower"] is None


def test_markdown_unchanged_shape(comparison):
    md = comparison_markdown(comparison, detail="full")
    assert "| BC P(\\|Δ\\|<ε) |" in md
    assert "reference group 'Male'" in md


def test_the_differences_are_two_tables_that_fit_a_wide_terminal(comparison):
    """Each pair is a row of the models' table and of the frequentist one; with two
    models, neither table runs past 130 characters (one table of both ran to 370)."""
    md = comparison_markdown(comparison, detail="full")
    headers = [line for line in md.splitlines() if line.startswith("| metric | pair |")]
    assert "| BB HDI |" in headers[0] and "Newcombe" not in headers[0]
    assert "| Newcombe |" in headers[1] and "HDI" not in headers[1]
    rows = [line for line in md.splitlines() if line.startswith("| accuracy | Female − Male |")]
    assert len(rows) == 2
    assert max(len(line) for line in [*headers[:2], *rows]) <= 130


def test_priors_are_written_for_people():
    from bayesfair.models.beta_binomial import BetaPrior
    from bayesfair.models.calibration import CalibrationPriors, DiscrepancyPrior
    from bayesfair.report.prose import prior_words

    assert prior_words(BetaPrior(1.0, 1.0, cells=False).to_dict()) == (
        "each group's rate ~ Beta(1, 1), each on its own"
    )
    calib = prior_words(CalibrationPriors().to_dict())
    assert calib.startswith("calibration map σ(c + a log s − b log(1 − s)) per group")
    disc = prior_words(DiscrepancyPrior(0.01, 0.01, 2.0).to_dict())
    assert "prior probability 0.01" in disc and "κ = 2 and" in disc
    assert "(" not in prior_words(BetaPrior(2.0, 3.0, cells=False).to_dict()).split("~")[0]
    assert prior_words(None) == "not recorded"


def test_html_and_markdown_print_the_variance_table_alike(no_positive_in_b):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comp = bf.compare(
            no_positive_in_b,
            ["accuracy"],
            models=("bb",),
            n_resamples=100,
            random_seed=0,
            fit_kwargs=dict(draws=50, tune=50, chains=1),
        )

    def decimals(text):
        return sorted({len(m) for m in re.findall(r"\d\.(\d+)", text)})

    md = comparison_markdown(comp, detail="full")
    html = comparison_html(comp, figures=False)
    md_var = md[md.index("Between-group variance") : md.index("## Provenance")]
    start = html.index('class="variance"')
    html_var = html[start : html.index("</table>", start)]
    assert decimals(md_var) == decimals(html_var) == [4]


# ------------------------------------------------------------------ calibration within groups
def _shown(v, digits=3):
    return "—" if math.isnan(v) else f"{v:.{digits}f}"


def test_every_format_has_calibration_within_groups_from_the_one_table(comparison, html):
    """The section in Markdown (text), HTML (its heading and table) and JSON (its key), each
    printing the numbers of ``Comparison.calibration_view``, one row per group and method."""
    view = comparison.calibration_view
    assert comparison.settings["calibration_model"] == "bc"
    md = comparison_markdown(comparison, detail="full")
    section = md.split("## Calibration within groups", 1)[1].split("Calibration check", 1)[0]
    header = "| group | method | rows | mean score | share of positives | gap | P(\\|gap\\|<ε) |"
    assert header in section
    html_section = html.split('<h2 id="calibration-within-groups">Calibration within groups</h2>')
    assert len(html_section) == 2
    html_table = html_section[1].split("</table>", 1)[0]
    assert '<table class="calibration-groups">' in html_table
    for _, r in view.iterrows():
        g, lab, unl = r["group"], r["n_labeled"], r["n_unlabeled"]
        bc = (
            f"| {g} | BC | {lab} + {unl} | {_shown(r['bc_mean_score'])} | "
            f"{_shown(r['bc_positive_rate'])} [{_shown(r['bc_positive_rate_lower'])}, "
            f"{_shown(r['bc_positive_rate_upper'])}] | {_shown(r['bc_calibration_gap'])} "
            f"[{_shown(r['bc_calibration_gap_lower'])}, {_shown(r['bc_calibration_gap_upper'])}]"
            f" | {_shown(r['bc_prob_within'], 2)} | {r['bc_decision']} |"
        )
        freq = (
            f"| {g} | labeled rows | {lab} | {_shown(r['freq_mean_score'])} | "
            f"{_shown(r['freq_positive_rate'])} [{_shown(r['freq_positive_rate_lower'])}, "
            f"{_shown(r['freq_positive_rate_upper'])}] | {_shown(r['freq_calibration_gap'])} "
            f"[{_shown(r['freq_calibration_gap_lower'])}, "
            f"{_shown(r['freq_calibration_gap_upper'])}] | — | — |"
        )
        assert bc in section and freq in section
        # the HTML table holds the same cells
        cells = bc.strip("| ").split(" | ")
        assert "<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>" in html_table
        if r["sentence"]:
            assert f"- {r['sentence']}" in section and r["sentence"] in html_section[1]
    # the table's lines stay readable
    assert max(map(len, section.splitlines())) < 600
    table_lines = [line for line in section.splitlines() if line.startswith("|")]
    assert len(table_lines) == 2 + 2 * len(view) and max(map(len, table_lines)) <= 110
    records = json.loads(comparison_json(comparison))["calibration"]
    assert len(records) == len(view)
    for rec, (_, r) in zip(records, view.iterrows(), strict=True):
        assert rec["group"] == r["group"] and rec["bc_decision"] == r["bc_decision"]
        for col in ("bc_calibration_gap", "bc_calibration_gap_lower", "freq_calibration_gap_upper"):
            assert rec[col] == pytest.approx(r[col])
    assert "<figcaption>Calibration within groups: each group" in html  # the figure


def test_a_decided_gap_is_one_plain_sentence_in_every_format():
    """Scores that overstate group B's positives by about 15 points, 1,500 labels: the
    sentence says so in whole points (the interval is wider than ±ε), with the interval, in
    Markdown, HTML and JSON alike."""
    import numpy as np

    rng = np.random.default_rng(1)
    n = 1500
    s = rng.uniform(0.2, 0.8, n)
    g = np.where(np.arange(n) % 2 == 0, "A", "B")
    y = (rng.uniform(size=n) < np.where(g == "B", s - 0.15, s)).astype(int)
    comp = bf.compare(
        bf.AssessmentData(s, y, g, reference="A"),
        ["accuracy"],
        models=(),
        n_resamples=300,
        random_seed=0,
        progressbar=False,
    )
    view = comp.calibration_view.set_index("group")
    b = view.loc["B"]
    assert b["freq_decision"] == "unfair" and b["freq_calibration_gap"] > 0.1
    size = f"{100 * b['freq_calibration_gap']:.0f}"
    lo, hi = (f"{100 * b[f'freq_calibration_gap_{e}']:.0f}" for e in ("lower", "upper"))
    sentence = (
        f"The scores overstate group B's positives by {size} points (95% interval {lo} to "
        f"{hi} points)."
    )
    assert b["sentence"] == sentence
    assert f"- {sentence}" in comp.to_markdown()
    assert f"<li>{sentence}</li>" in comp.to_html(figures=False)
    assert json.loads(comp.to_json())["calibration"][1]["sentence"] == sentence


def test_a_finding_on_a_group_without_labels_says_what_it_rests_on():
    """A group seen only in the unlabeled rows: its pair's finding says that no label of
    its own checks its rates, and what they come from under the deciding model."""
    import numpy as np

    from bayesfair.report.document import findings

    rng = np.random.default_rng(0)
    s = rng.uniform(size=300)
    y = (rng.uniform(size=300) < s).astype(int)
    g = np.where(rng.uniform(size=300) < 0.5, "a", "b")
    s_u = rng.uniform(size=600)
    g_u = np.array(["a", "b", "c"])[rng.integers(0, 3, 600)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the group without labels is warned about
        data = bf.AssessmentData(s, y, g, s_u, g_u, reference="a")
        comp = bf.compare(data, ["accuracy"], models=("bb",), n_resamples=200, progressbar=False)
    by_group = {f["group"]: f["text"] for f in findings(comp)}
    assert "c has no labeled example: its rates are the model's prior" in by_group["c"]
    assert "no labeled example" not in by_group["b"]


def test_the_three_formats_carry_the_same_sections(comparison):
    """Markdown (the command line's default), HTML and JSON: each section in all three,
    with the same sentences where a section is sentences (the findings, the plain
    words, the notes)."""
    md = comparison_markdown(comparison, detail="full")
    html = comparison_html(comparison, figures=False)
    payload = json.loads(comparison_json(comparison))
    sections = {  # JSON key: (Markdown marker, HTML marker: a heading, or folded detail)
        "answer": ("# Does the classifier treat the 2 groups alike", "Does the classifier"),
        "findings": ("## Findings", '<h2 id="findings">Findings</h2>'),
        "settings": ("## Settings", '<h2 id="settings">Settings</h2>'),
        "groups": ("## Group sizes (labeled / unlabeled)", "<summary>Group sizes"),
        "pairs": ("## Differences Δ = rate(group)", "<summary>Differences Δ = rate(group)"),
        "plain_words": ("## In plain words", "<summary>In plain words</summary>"),
        "variance": ("## Between-group variance", "<summary>Between-group variance"),
        "calibration_check": ("## Calibration check", "Calibration check"),
        "diagnostics": ("## Sampler diagnostics", "Sampler diagnostics"),
        "notes": ("## Notes", '<h2 id="notes">Notes</h2>'),
        "provenance": ("## Provenance", "<summary>Provenance</summary>"),
    }
    for key, (in_md, in_html) in sections.items():
        assert payload[key], key
        assert in_md in md and in_html in html, key
    for key in ("plain_words", "notes"):
        for sentence in payload[key]:
            assert sentence in md, sentence
            assert html_escape(sentence, quote=False) in html or html_escape(sentence) in html
    for finding in payload["findings"]:
        assert finding["text"] in md


def test_the_three_formats_draw_one_list_of_sections(comparison):
    """The one list of sections (comparison_sections): each shown section is a heading
    in Markdown and HTML, its tables' rows are in both, and the JSON document is the
    union of the sections' records, shown or not."""
    from html import escape

    sections = comparison_sections(comparison)
    md = comparison_markdown(comparison, detail="full")
    html = comparison_html(comparison, figures=False)
    payload = json.loads(comparison_json(comparison))
    assert set(payload) == {k for s in sections for k in s.records}
    shown = [s for s in sections if s.shown and s.blocks]
    assert md.index(f"# {shown[0].title}\n") == 0  # the question, then its answer
    for section in shown:
        heading = "#" if section is shown[0] else "##"
        assert f"{heading} {section.title}\n" in md, section.key
        in_html = (
            f"<details><summary>{escape(section.fold or section.title)}</summary>"
            if section.detail or section.fold
            else f'<h2 id="{section.key}">{escape(section.title)}</h2>'
        )
        assert in_html in html, section.key
        for block in section.blocks:
            if block[0] == "table" and len(block[1]):
                cell = str(block[1].iloc[0, 0])
                assert cell in md and escape(cell, quote=False) in html, (section.key, cell)
