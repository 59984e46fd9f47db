"""Loaders for the data bundled with bayesfair (the top-level ``data/`` folder).

Two kinds of data are bundled (provenance, licences and quirks in
``data/README.md``):

* **score sets** — the test splits of Ji et al. (2020) with the scores of five
  classifiers per row. :func:`load_scores` returns one as a tidy frame with the
  columns ``score, label, group, raw_group`` and the other sensitive columns;
  :func:`load_assessment` splits it into a labeled and an unlabeled part and
  returns an :class:`~bayesfair.data.AssessmentData`.
* **raw datasets** — Adult, German credit, COMPAS (two outcomes), Ricci, and
  the full UCI Adult of Lum et al. (2022, §6): :func:`load_raw`,
  :func:`load_uci_adult`;
* **a bias audit's table** — the selection counts of New York City's rule's
  worked example: :func:`load_selection_example`.

Every file is checked against ``data/SHA256SUMS`` before it is read (once per
process and file); :func:`verify_checksums` checks them all.

The label, its positive value and the privileged group of each score set are
declared once, in :data:`SCORE_SETS`; :func:`list_datasets` shows them.

References
----------
Ji, Smyth, Steyvers (2020). *Can I Trust My Fairness Metric? Assessing
Fairness with Unlabeled Data and Bayesian Inference.* NeurIPS. §3, Table 1.

Lum, Zhang, Bower (2022). *De-biasing "bias" measurement.* FAccT. §6.

Friedler, Scheidegger, Venkatasubramanian, Choudhary, Hamilton, Roth (2019).
*A comparative study of fairness-enhancing interventions in machine learning.*
FAT*. (The preprocessing behind the score sets.)
"""

from bayesfair.datasets._files import data_dir, verify_checksums
from bayesfair.datasets.raw import load_selection_example, load_uci_adult
from bayesfair.datasets.registry import (
    RAW_DATASETS,
    SCORE_SETS,
    RawDataset,
    ScoreSet,
    get_score_set,
    list_datasets,
    load_raw,
)
from bayesfair.datasets.scores import LabeledSplit, load_assessment, load_scores, split_labeled
from bayesfair.exceptions import ChecksumError

__all__ = [
    "RAW_DATASETS",
    "SCORE_SETS",
    "ChecksumError",
    "LabeledSplit",
    "RawDataset",
    "ScoreSet",
    "data_dir",
    "get_score_set",
    "list_datasets",
    "load_assessment",
    "load_raw",
    "load_scores",
    "load_selection_example",
    "load_uci_adult",
    "split_labeled",
    "verify_checksums",
]
