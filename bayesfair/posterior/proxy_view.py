"""``FairnessPosterior.proxy_summary``: how the proxy compares with the self-reported groups.

Per group, for a fit whose data hold groups known as a proxy's probabilities
(:mod:`bayesfair.data.proxy`, :mod:`bayesfair.models.proxy`):

* **the proxy's calibration**: over the rows whose group is self-reported and that
  carry the proxy, the proxy's mean probability of the group beside the group's
  share of those rows (Jeffreys interval), and their difference;
* **the rows of unknown group**: how many of them the proxy gives the group
  (``Σ p_g``) and how many the posterior does (mean and HDI);
* **the link**: the fitted λ_g of ``P(y | s, g, p) = σ(η_g(s) + λ_g (p_g − p̄_g))``
  with its interval, and **how strong a link would have to be to change a verdict**:
  the smallest shift of λ_g, either way, on the grid :data:`LINK_GRID`, that turns a
  verdict of a pair with the group (any fitted metric, the summary's rule) into
  another; NaN when none up to the grid's end does. A shift of 2 moves a row's
  log-odds of a positive by 2 × (its probability of the group − the group's mean).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from bayesfair._internal.tree import get_group, has_group
from bayesfair._internal.validation import check_epsilon, check_probability, takes
from bayesfair.exceptions import InvalidParameterError
from bayesfair.metrics.rates import rate_from_counts
from bayesfair.metrics.verdicts import population_interval
from bayesfair.models.catalogue import named_models_with_map
from bayesfair.models.proxy import MixtureCalibration, fit_group_calibration, fit_link
from bayesfair.models.proxy import latent_counts as draw_latent
from bayesfair.stats import hdi

#: Shifts of a group's link tried, each way, for ``link_to_change``.
LINK_GRID = (1.0, 2.0, 4.0, 8.0)
# draws used for the link's what-if refits (the verdicts' rule reads the draws' interval)
_WHAT_IF_DRAWS = 400


@takes("FairnessPosterior")
def proxy_summary(result, ci_prob: float = 0.95, epsilon: float = 0.02) -> pd.DataFrame:
    """The proxy beside the self-reported groups, and how much a link would change.

    Parameters
    ----------
    result : FairnessPosterior
        A calibration-model fit (``rbc``, ``bc``) of data with group probabilities.
    ci_prob : float, default 0.95
    epsilon : float, default 0.02
        The verdicts' ε (as in ``summary``).

    Returns
    -------
    pandas.DataFrame
        ``group, n_self_reported, mean_probability, share, share_lower, share_upper,
        proxy_gap, proxy_gap_lower, proxy_gap_upper, unknown_rows_proxy,
        unknown_rows, unknown_rows_lower, unknown_rows_upper, link, link_lower,
        link_upper, link_rows, link_to_change, assumption``.
    """
    ci_prob, epsilon = check_probability(ci_prob), check_epsilon(epsilon)
    data = result.data
    post = get_group(result.idata, "posterior")
    if data is None or data.proxy is None or "proxy_cells" not in post:
        raise InvalidParameterError(
            f"proxy_summary needs a calibration-model fit ({named_models_with_map()}) of data "
            "with group "
            "probabilities (AssessmentData.from_frames(..., group_probabilities=...)), "
            "in this session (a result read from a file keeps no data)."
        )
    proxy = data.proxy
    k = len(proxy.levels)
    known = [s.select(s.known) for s in proxy.summaries()]
    reported = np.zeros(k)
    for s in known:
        np.add.at(reported, s.group, s.count)
    n_known = reported.sum()
    mean_p = sum(s.sum_p.sum(axis=0) for s in known) / n_known if n_known else np.full(k, np.nan)
    share = population_interval(reported, np.full(k, n_known), ci_prob) if n_known else None
    unknown = [s.select(~s.known) for s in proxy.summaries()]
    latent = post["proxy_cells"].sum("cell").transpose("chain", "draw", "group").values
    latent = latent.reshape(-1, k)
    lam = post["proxy_link"].transpose("chain", "draw", "group").values.reshape(-1, k)
    change = link_to_change(result, epsilon, ci_prob)
    rows = []
    for g, name in enumerate(proxy.levels):
        lo_n, hi_n = hdi(latent[:, g], ci_prob)
        lo_l, hi_l = hdi(lam[:, g], ci_prob)
        frac = reported[g] / n_known if n_known else np.nan
        s_lo = share.lower[g] if share is not None else np.nan
        s_hi = share.upper[g] if share is not None else np.nan
        rows.append(
            {
                "group": name,
                "n_self_reported": round(float(reported[g])),
                "mean_probability": float(mean_p[g]),
                "share": float(frac),
                "share_lower": float(s_lo),
                "share_upper": float(s_hi),
                "proxy_gap": float(mean_p[g] - frac),
                "proxy_gap_lower": float(mean_p[g] - s_hi),
                "proxy_gap_upper": float(mean_p[g] - s_lo),
                "unknown_rows_proxy": float(sum(s.sum_p[:, g].sum() for s in unknown)),
                "unknown_rows": float(latent[:, g].mean()),
                "unknown_rows_lower": float(lo_n),
                "unknown_rows_upper": float(hi_n),
                "link": float(lam[:, g].mean()),
                "link_lower": float(lo_l),
                "link_upper": float(hi_l),
                "link_rows": int(_link_rows(proxy)[g]),
                "link_to_change": change[g],
                "assumption": proxy_assumption(result.idata),
            }
        )
    return pd.DataFrame(rows)


def proxy_assumption(idata) -> str | None:
    """What the groups of a fit's rows known through a proxy rest on (None without one):
    the posterior's ``proxy_assumption`` attribute, which the fit writes."""
    if not has_group(idata, "posterior"):
        return None
    return get_group(idata, "posterior").attrs.get("proxy_assumption")


def _link_rows(proxy) -> np.ndarray:
    rows = proxy.labeled.select(proxy.labeled.known)
    out = np.zeros(len(proxy.levels))
    np.add.at(out, rows.group, rows.count)
    return out


def link_to_change(result, epsilon: float, ci_prob: float) -> list[float]:
    """Per group, the smallest shift of its link on :data:`LINK_GRID` that changes a verdict.

    The latent counts are drawn again with the group's λ shifted (every other draw as
    fitted: maps, calibration, other links), on at most 400 draws, and the
    summary's verdicts of the pairs with the group compared with the fit's.
    """
    data, post = result.data, get_group(result.idata, "posterior")
    k = data.n_groups
    keep = _thin(post.sizes["chain"] * post.sizes["draw"])
    a, b, c = (
        post[v].transpose("chain", "draw", "group").values.reshape(-1, k)[keep][None]
        for v in ("a", "b", "c")
    )
    cells = post["cells"].transpose("chain", "draw", "group", "cell").values.reshape(-1, k, 4)
    old = post["proxy_cells"].transpose("chain", "draw", "group", "cell").values.reshape(-1, k, 4)
    base = (cells - old)[keep][None]
    phi = post["proxy_phi"].values.reshape(-1, *post["proxy_phi"].shape[2:])[keep][None]
    lam = post["proxy_link"].transpose("chain", "draw", "group").values.reshape(-1, k)[keep][None]
    constant = get_group(result.idata, "constant_data")
    if "proxy_density" in constant:
        calibration = MixtureCalibration(
            density=constant["proxy_density"].values, n_bins=data.proxy.labeled.n_bins
        )
    else:
        calibration = fit_group_calibration(data.proxy, data.group_levels.index(data.reference))
    link = fit_link(data.proxy, *(v.mean(axis=(0, 1)) for v in (a, b, c)))
    metrics = result.metrics

    def verdicts(total) -> dict:
        rates = {m: rate_from_counts(total, m) for m in metrics}
        return _decisions(result, rates, epsilon, ci_prob)

    counts, _, _, _ = draw_latent(
        data.proxy, a, b, c, calibration, link, np.random.default_rng(0), phi=phi, lam=lam
    )
    fitted = verdicts(base + counts)
    out = []
    for g in range(k):
        found = np.nan
        for shift in LINK_GRID:
            for sign in (1.0, -1.0):
                moved = lam.copy()
                moved[..., g] += sign * shift
                counts, _, _, _ = draw_latent(
                    data.proxy,
                    a,
                    b,
                    c,
                    calibration,
                    link,
                    np.random.default_rng(0),
                    phi=phi,
                    lam=moved,
                )
                now = verdicts(base + counts)
                name = data.group_levels[g]
                if any(now[key] != fitted[key] for key in fitted if name in key[1:]):
                    found = shift
                    break
            if np.isfinite(found):
                break
        out.append(found)
    return out


def _thin(n: int) -> np.ndarray:
    return np.unique(np.linspace(0, n - 1, min(n, _WHAT_IF_DRAWS)).astype(int))


def _decisions(result, rates: dict, epsilon: float, ci_prob: float) -> dict:
    """The summary's verdicts, ``(metric, group, reference) -> decision``, with ``rates``
    (metric -> draws ``(1, n, K)``) in place of the fit's."""
    import xarray as xr

    tree = result.idata.copy()
    groups = result.rates(next(iter(rates))).coords["group"].values
    frame = xr.Dataset(
        {m: (("chain", "draw", "group"), r) for m, r in rates.items()}, coords={"group": groups}
    )
    tree["rates"] = xr.DataTree(frame)  # the result's rates group (FairnessPosterior.rates)
    what_if = type(result)(
        tree,
        model=result.model,
        reference=result.reference,
        settings=result.settings,
        data=result.data,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = what_if.summary(list(rates), epsilon=epsilon, ci_prob=ci_prob)
    return {(r.metric, r.group, r.reference): r.decision for r in table.itertuples(index=False)}
