"""bayesfair.report.provenance: what reproduces a report, as a record and as rows."""

from bayesfair.report.provenance import provenance, provenance_rows, provenance_table


def test_the_provenance_of_an_exact_sampler_names_no_tuning_steps():
    """bb's exact sampler draws independently: its row has no tuning steps; NUTS's has."""
    fits = [("BB", {"sampler": "exact", "chains": 4, "draws": 1000, "tune": 1000})]
    fits.append(("RBC", {"sampler": "nuts", "chains": 4, "draws": 1000, "tune": 1000}))
    rows = dict(provenance_table({}, fits))
    assert rows["BB sampler"] == "exact, 4 chains × 1000 draws"
    assert rows["RBC sampler"] == "nuts, 4 chains × 1000 draws after 1000 tuning steps"


def test_the_rows_name_the_time_seed_inputs_and_call_in_order():
    settings = {
        "provenance": {
            "created": "2024-01-02T03:04:05+00:00",
            "versions": {"bayesfair": "0.4.0", "numpy": "2.0"},
            "inputs": [{"role": "labeled", "path": "a.csv", "rows": 1200, "sha256": "ab12"}],
            "call": "bayesfair.compare(data)",
        },
        "random_seed": {"entropy": 7, "spawn_key": []},
    }
    rows = provenance_table(settings, [])
    assert rows == [
        ("created", "2024-01-02T03:04:05+00:00"),
        ("versions", "bayesfair 0.4.0, numpy 2.0"),
        ("random seed", "7 (random_seed=7 reproduces it)"),
        ("input (labeled)", "a.csv: 1,200 rows, SHA-256 ab12"),
        ("call", "bayesfair.compare(data)"),
    ]
    assert dict(provenance_table({}, []))["random seed"] == "not recorded"


def test_a_comparison_s_rows_have_each_fit_s_sampler_and_prior(comparison):
    rows = dict(provenance_rows(comparison))
    assert rows["BB sampler"].startswith("exact, 2 chains × 200 draws")
    assert "tuning steps" in rows["BC sampler"]
    assert rows["BB prior"].startswith("each group's confusion cells ~ Dirichlet")
    assert rows["call"] == provenance(comparison)["call"]
    assert provenance(comparison) is not comparison.settings["provenance"]  # a copy
