"""The first screen of a report: the question and its answer, in at most 15 lines.

:func:`answer_section` says, for an auditor who reads nothing else: the question the
report answers; one sentence per metric (the verdict, the gap, its interval, how sure);
the worst-off group; and what would change the answer (about how many more labels).
Every verdict it says was decided elsewhere, once (the family view,
:func:`bayesfair.posterior.groups.family_summary`, and the pair verdicts,
:func:`bayesfair.report.verdicts.pair_verdicts`); this module only words them.

How many more labels
--------------------
A rough guide, said as one: an interval narrows as ``1/√n`` with ``n`` labels spread
as today's, so if the estimate held, the labels that bring the interval's end across ε
are ``n · (h / d)² − n``, with ``h`` the distance from the estimate to that end and
``d`` the distance from the estimate to ε (both ends inside ±ε for "practically fair",
the nearer end beyond it for "unfair"). A calibration model
narrows more slowly than that (its unlabeled rows do not grow), so the figure is a
floor; ``bayesfair plan`` simulates the whole curve. Where the estimate lies within
:data:`TOO_CLOSE` of ε, or the figure exceeds :data:`MAX_FACTOR` times today's labels,
the report says "more than" that instead.
"""

from __future__ import annotations

import math

from bayesfair._internal.render import Section
from bayesfair._internal.validation import takes
from bayesfair.metrics.rates import get_rate
from bayesfair.metrics.verdicts import TOO_FEW

__all__ = ["MAX_FACTOR", "TOO_CLOSE", "answer_section", "labels_to_decide", "question"]

#: Beyond this many times today's labels the guide says "more than" (it would be a guess).
MAX_FACTOR = 20
#: An estimate this close to ε (absolute) cannot be decided by more labels alone.
TOO_CLOSE = 1e-3


@takes("Comparison")
def question(comp) -> str:
    """The question a comparison answers, as the report's title."""
    labels = [get_rate(m).label for m in dict.fromkeys(comp.pairs["metric"])]
    names = ", ".join(labels[:-1]) + (" and " if len(labels) > 1 else "") + labels[-1]
    k = len(comp.groups)
    return f"Does the classifier treat the {k} groups alike in {names}?"


def labels_to_decide(estimate, lower, upper, epsilon: float, n_labeled: int) -> float:
    """About how many more labels (spread as today's) would decide a gap: see the
    module's docstring. ``inf`` where more labels alone cannot (the estimate on ε, or
    beyond :data:`MAX_FACTOR` times ``n_labeled``); NaN without an interval.

    Parameters
    ----------
    estimate, lower, upper : float
        The gap's estimate and interval (a family's max − min, or a pair's Δ).
    epsilon : float
        The half-width of the region of practical equivalence.
    n_labeled : int
        Today's labels.
    """
    values = (estimate, lower, upper)
    if any(v is None or math.isnan(v) for v in values) or n_labeled <= 0:
        return math.nan
    if abs(abs(estimate) - epsilon) < TOO_CLOSE:
        return math.inf
    e, above, below = estimate, upper - estimate, estimate - lower
    if abs(e) < epsilon:  # "practically fair": both ends inside ±ε
        limits = [_room(epsilon - e, above), _room(epsilon + e, below)]
    elif e > 0:  # "unfair": the lower end above ε
        limits = [_room(e - epsilon, below)]
    else:  # "unfair": the upper end below −ε
        limits = [_room(-epsilon - e, above)]
    shrink = min(limits)
    if shrink >= 1.0:
        return 0.0
    more = n_labeled * (shrink**-2 - 1.0)
    return math.inf if more > MAX_FACTOR * n_labeled else more


def _room(distance: float, reach: float) -> float:
    """The factor by which an interval's side of length ``reach`` must shrink to end
    within ``distance`` of the estimate (``inf``: that side is already there)."""
    return math.inf if reach <= distance else distance / reach


def _metric_sentence(comp, metric: str) -> str:
    """One metric's verdict in one sentence: the family's with more than two groups, the
    pair's with two."""
    label = get_rate(metric).label
    label = label[0].upper() + label[1:]
    pct, eps = f"{comp.settings['ci_prob']:.0%}", comp.settings["epsilon"]
    if len(comp.groups) == 2:
        v = comp.verdicts[comp.verdicts["metric"] == metric].iloc[0]
        if v["verdict"] == TOO_FEW:
            return f"{label}: too few for a verdict ({v['shortfall']})."
        if v["verdict"] == "undefined":
            return f"{label}: undefined (no labeled example in the rate's denominator)."
        sure = v["prob_practically_fair"]
        chance = "" if math.isnan(sure) else f"; P(|Δ| < {eps:g}) = {sure:.2f}"
        return (
            f"{label}: {v['verdict']}. {v['group']} − {v['reference']} = "
            f"{v['estimate']:+.3f}, {pct} interval [{v['lower']:.3f}, {v['upper']:.3f}]"
            f"{chance}."
        )
    m = comp.view_method
    r = comp.family_view[comp.family_view["metric"] == metric].iloc[0]
    verdict = r[f"{m}_decision"]
    if verdict == TOO_FEW:
        return f"{label}: too few for a verdict ({r.get(f'{m}_shortfall', '')})."
    lo, hi = r[f"{m}_max_gap_lower"], r[f"{m}_max_gap_upper"]
    sure = r.get(f"{m}_prob_all_within", math.nan)
    chance = "" if math.isnan(sure) else f"; P(all within ±{eps:g}) = {sure:.2f}"
    text = (
        f"{label}: {verdict}. The groups differ by up to {r[f'{m}_max_gap']:.3f} "
        f"({pct} interval [{lo:.3f}, {hi:.3f}]){chance}."
    )
    unfair = comp.verdicts[
        (comp.verdicts["metric"] == metric) & (comp.verdicts["verdict"] == "unfair")
    ]
    if len(unfair):
        pairs = ", ".join(f"{v['group']} vs {v['reference']}" for _, v in unfair.iterrows())
        text += f" Unfair pairs: {pairs}."
    return text


def _worst_sentence(comp) -> str:
    """The worst-off group of each metric, with how sure (the family view's P(worst))."""
    m = comp.view_method
    if f"{m}_worst_group" not in comp.family_view:
        return ""
    by_group: dict = {}
    for _, r in comp.family_view.iterrows():
        group, p = r[f"{m}_worst_group"], r[f"{m}_prob_worst"]
        if group is None or (isinstance(p, float) and math.isnan(p)):
            continue
        by_group.setdefault(str(group), []).append(f"{get_rate(r['metric']).label} (P = {p:.2f})")
    if not by_group:
        return ""
    parts = [f"{g} in {' and '.join(ms)}" for g, ms in by_group.items()]
    return "Worst off: " + "; ".join(parts) + "."


def _labels_sentence(comp) -> str:
    """What would change the answer: about how many more labels per undecided metric."""
    eps = comp.settings["epsilon"]
    n = int(comp.groups["n_labeled"].sum())
    parts, short = [], []
    for metric in dict.fromkeys(comp.pairs["metric"]):
        estimate, lower, upper, verdict, shortfall = _headline(comp, metric)
        label = get_rate(metric).label
        if verdict == TOO_FEW:
            short.append(f"{label} needs more labels of {shortfall}")  # the gate's words
        elif verdict == "undecided":
            more = labels_to_decide(estimate, lower, upper, eps, n)
            if math.isinf(more):
                parts.append(f"more than {MAX_FACTOR * n:,} for {label}")
            elif not math.isnan(more):
                parts.append(f"about {_round(more):,} for {label}")
    if not parts and not short:
        return ""
    sentences = []
    if parts:
        sentences.append(
            f"To decide, more labels spread as today's {n:,}: at least {_listed(parts)} (a "
            "floor, if the estimates held; the plan command simulates it)."
        )
    sentences += [f"{s[0].upper()}{s[1:]}." for s in short]
    return " ".join(sentences)


def _listed(parts: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _headline(comp, metric: str) -> tuple:
    """The estimate, interval, verdict and shortfall the metric's sentence says."""
    if len(comp.groups) == 2:
        v = comp.verdicts[comp.verdicts["metric"] == metric].iloc[0]
        return v["estimate"], v["lower"], v["upper"], v["verdict"], v["shortfall"]
    m = comp.view_method
    r = comp.family_view[comp.family_view["metric"] == metric].iloc[0]
    return (
        r[f"{m}_max_gap"],
        r[f"{m}_max_gap_lower"],
        r[f"{m}_max_gap_upper"],
        r[f"{m}_decision"],
        r.get(f"{m}_shortfall", ""),
    )


def _round(x: float) -> int:
    """Two significant figures, at least 10."""
    if x < 10:
        return 10
    digits = math.floor(math.log10(x)) - 1
    return int(round(x, -digits))


@takes("Comparison")
def answer_section(comp) -> Section:
    """The report's first screen as a :class:`~bayesfair._internal.render.Section`: its
    title is the question (:func:`question`); its blocks the setting in one line, one
    sentence per metric, the worst-off group and how many more labels would decide."""
    s = comp.settings
    sizes = comp.groups
    setting = (
        f"{int(sizes['n_labeled'].sum()):,} labeled and {int(sizes['n_unlabeled'].sum()):,} "
        f"unlabeled rows; practically fair means a gap within ±{s['epsilon']:g}; "
        f"the {s['ci_prob']:.0%} intervals hold for all groups and metrics together."
    )
    proxy = s.get("proxy")
    if proxy:
        setting += (
            f" Besides, {proxy['rows']:,} rows' groups are known only from a proxy; the "
            "verdicts rest on "
            + "; ".join(f"{m.upper()}: {a}" for m, a in proxy["assumptions"].items())
            + " (the proxy-weighted estimate and the bounds without a link between proxy "
            "and outcome stand beside them in the detail)."
        )
    metrics = [_metric_sentence(comp, m) for m in dict.fromkeys(comp.pairs["metric"])]
    tail = [t for t in (_worst_sentence(comp), _labels_sentence(comp)) if t]
    blocks = (("text", setting), ("items", metrics, "findings"), *(("text", t) for t in tail))
    records = {"answer": {"question": question(comp), "sentences": [setting, *metrics, *tail]}}
    return Section("answer", question(comp), blocks, records)
