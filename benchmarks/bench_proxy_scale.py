"""10⁷ rows with group probabilities against the same rows with their groups known.

One data set of :func:`bayesfair.datasets.simulate.proxy_audit` (K groups, medium
proxy, real Adult MLP scores): 1,000 labeled rows with their groups self-reported and
``--rows`` unlabeled rows written to one Parquet file with a probability column per
group. Two audits of those rows, each timed from the file to a fitted posterior
(``bf.fit`` defaults: ``rbc``, 4 chains × 1,000 draws), in the same process one after
the other, repeated ``--repeats`` times in alternation (the machine is shared: the
ratio of medians is the figure, not the seconds):

* ``known``: the unlabeled rows with their true groups, summarised by DuckDB
  (``AssessmentData.from_frames(labeled, path)``);
* ``proxy``: every unlabeled row's group missing, its probabilities given
  (``group_probabilities=``): DuckDB's one GROUP BY (:func:`bayesfair.summarize_proxy`),
  the latent-group model of :mod:`bayesfair.models.proxy`.

Goal (issue): ``proxy`` at most 3× ``known``. Writes
``docs/results/bench_proxy_scale.txt``.

Run::

    python benchmarks/bench_proxy_scale.py                       # 10^7 rows, K = 3
    python benchmarks/bench_proxy_scale.py --rows 1000000 --repeats 1   # quick
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import warnings
from pathlib import Path

import bayesfair as bf
from bayesfair.datasets.simulate import proxy_audit

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs/results/bench_proxy_scale.txt"


def _known(lab, path_known) -> float:
    start = time.perf_counter()
    data = bf.AssessmentData.from_frames(
        lab, str(path_known), score="score", label="label", group="group", reference="White"
    )
    bf.fit(data, random_seed=0, progressbar=False)
    return time.perf_counter() - start


def _proxy(lab, path_proxy, mapping) -> tuple[float, int]:
    start = time.perf_counter()
    data = bf.AssessmentData.from_frames(
        lab,
        str(path_proxy),
        score="score",
        label="label",
        group="group",
        group_probabilities=mapping,
        reference="White",
    )
    bf.fit(data, random_seed=0, progressbar=False)
    return time.perf_counter() - start, data.proxy.unlabeled.n_entries


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--groups", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    audit = proxy_audit(args.groups, 1000, args.rows, 1000, random_seed=0)
    lab = audit.labeled.drop(columns=["true_group", "place", "name"])
    unl = audit.unlabeled
    mapping = audit.group_probabilities
    with tempfile.TemporaryDirectory() as tmp:
        path_known = Path(tmp) / "known.parquet"
        path_proxy = Path(tmp) / "proxy.parquet"
        unl.assign(group=unl["true_group"])[["score", "group"]].to_parquet(path_known)
        unl[["score", "group", *mapping.values()]].to_parquet(path_proxy)
        del unl
        known, proxy = [], []
        for _ in range(args.repeats):
            known.append(_known(lab, path_known))
            seconds, entries = _proxy(lab, path_proxy, mapping)
            proxy.append(seconds)
    ratio = statistics.median(proxy) / statistics.median(known)
    lines = [
        f"rows: {args.rows:,} unlabeled + 1,000 labeled, K = {args.groups}, "
        f"{args.repeats} alternating repeats",
        f"known groups  (DuckDB summary + rbc fit): median {statistics.median(known):.1f} s "
        f"({', '.join(f'{s:.1f}' for s in known)})",
        f"group as proxy (summarize_proxy + latent groups): median "
        f"{statistics.median(proxy):.1f} s ({', '.join(f'{s:.1f}' for s in proxy)}); "
        f"{entries:,} proxy entries",
        f"ratio proxy / known: {ratio:.2f} (goal: at most 3)",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    OUT.write_text(text)


if __name__ == "__main__":
    main()
