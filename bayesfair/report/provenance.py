"""What reproduces a report: its provenance, as a record and as (item, value) rows.

The record is the comparison's ``settings["provenance"]`` (versions, time, the call,
the input files); the rows add the seed and each fit's sampler and priors in words
(:mod:`bayesfair.report.prose`). The report's last section
(:mod:`bayesfair.report.sections`) and the over-time report
(:mod:`bayesfair.report.periods`) print them.
"""

from __future__ import annotations

from bayesfair.report import prose


def provenance(comp) -> dict:
    """What reproduces a report: versions, time, seed, sampler, priors, inputs, the call."""
    return dict(comp.settings.get("provenance", {}))


def provenance_rows(comp) -> list[tuple[str, str]]:
    """The provenance of a comparison's report as (item, value) rows
    (:func:`provenance_table` of its settings and fits)."""
    fits = [(name.upper(), post.settings) for name, post in comp.posteriors.items()]
    return provenance_table(comp.settings, fits)


def provenance_table(settings: dict, fits) -> list[tuple[str, str]]:
    """A report's provenance as (item, value) rows: the time, versions, seed, each fit's
    sampler and priors, the input files and the call.

    Parameters
    ----------
    settings : dict
        The report's settings: ``provenance`` (:func:`bayesfair._internal.validation.run_record`,
        with the command line's inputs) and ``random_seed``.
    fits : iterable of (str, dict)
        Each fit's name as the report shows it, and its settings.

    Returns
    -------
    list of (str, str)
    """
    prov = dict(settings.get("provenance", {}))
    rows = []
    if prov.get("created"):
        rows.append(("created", prov["created"]))
    if prov.get("versions"):
        rows.append(("versions", ", ".join(f"{k} {v}" for k, v in prov["versions"].items())))
    rows.append(("random seed", prose.seed_text(settings.get("random_seed"))))
    for name, s in fits:
        # an exact (conjugate) sampler draws independently: no tuning steps to report
        tuning = "" if s.get("sampler") == "exact" else f" after {s.get('tune')} tuning steps"
        rows.append(
            (
                f"{name} sampler",
                f"{s.get('sampler', '')}, {s.get('chains')} chains × {s.get('draws')} draws"
                f"{tuning}",
            )
        )
        rows.append((f"{name} prior", prose.prior_words(s.get("prior"))))
        if s.get("discrepancy"):
            rows.append((f"{name} discrepancy prior", prose.prior_words(s["discrepancy"])))
    for item in prov.get("inputs", []):
        rows.append(
            (
                f"input ({item['role']})",
                f"{item['path']}: {item['rows']:,} rows, SHA-256 {item['sha256']}",
            )
        )
    if prov.get("call"):
        rows.append(("call", prov["call"]))
    return rows
