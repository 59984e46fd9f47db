"""The result's container: an ``xarray.DataTree`` laid out as ArviZ 1's
(:mod:`bayesfair._internal.tree`)."""

import numpy as np
import pytest
import xarray as xr

from bayesfair._internal.tree import assign, get_group, group_names, has_group, make_tree


@pytest.fixture
def tree():
    theta = np.arange(12, dtype=float).reshape(2, 3, 2)
    posterior = xr.Dataset({"theta": (("chain", "draw", "group"), theta)})
    rates = xr.Dataset({"accuracy": (("chain", "draw", "group"), 1 - theta / 12)})
    return make_tree({"posterior": posterior, "rates": rates, "prior": None}, attrs={"a": 1})


def test_a_tree_has_a_child_per_group_in_order_and_skips_missing_ones(tree):
    assert group_names(tree) == ("posterior", "rates")
    assert has_group(tree, "rates") and not has_group(tree, "prior")
    assert not has_group(None, "posterior")
    assert tree.attrs == {"a": 1}


def test_arviz_reads_the_tree_as_its_own():
    """ArviZ 1 takes the tree as it is (its diagnostics find the posterior group)."""
    import arviz_stats as azs

    x = np.random.default_rng(0).normal(size=(4, 200))
    tree = make_tree({"posterior": xr.Dataset({"mu": (("chain", "draw"), x)})})
    direct = azs.ess(x, method="bulk")
    assert float(azs.ess(tree, method="bulk")["mu"]) == pytest.approx(direct)


def test_a_group_is_a_dataset_and_a_missing_one_is_named(tree):
    post = get_group(tree, "posterior")
    assert isinstance(post, xr.Dataset)
    np.testing.assert_array_equal(post["theta"], tree.posterior["theta"])
    with pytest.raises(KeyError, match=r"no 'prior' group; it has \['posterior', 'rates'\]"):
        get_group(tree, "prior")


def test_assign_adds_variables_from_dims_and_values(tree):
    """A ``(dims, values)`` pair becomes a variable (a tree's own ``__setitem__`` would
    store the tuple as one object)."""
    assign(tree, "posterior", spread=(("chain", "draw"), np.ones((2, 3))))
    spread = tree.posterior["spread"]
    assert spread.dims == ("chain", "draw") and spread.dtype == float
    assert "theta" in tree.posterior and group_names(tree) == ("posterior", "rates")
