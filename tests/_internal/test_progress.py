"""The package's progress bar (:mod:`bayesfair._internal.progress`): rich's, on standard error."""

from bayesfair._internal.progress import track


def test_disabled_it_yields_the_items_and_prints_nothing(capsys):
    assert list(track(iter("abc"), 3, "runs", enabled=False)) == ["a", "b", "c"]
    assert capsys.readouterr() == ("", "")


def test_enabled_it_yields_the_items_and_draws_the_bar_on_stderr(capsys):
    assert list(track(range(5), 5, "simulations")) == [0, 1, 2, 3, 4]
    out, err = capsys.readouterr()
    assert out == ""
    assert "simulations" in err
    assert "5/5" in err  # the finished bar: every step advanced


def test_the_bar_counts_the_items_taken_out_of_a_longer_total(capsys):
    items = []
    for item in track(range(10), 10, "runs"):
        items.append(item)
        if item == 3:
            break
    assert items == [0, 1, 2, 3]
    err = capsys.readouterr().err
    assert "runs" in err and "3/10" in err and "10/10" not in err


def test_it_is_lazy():
    """Nothing is drawn or consumed before the first item is asked for."""
    consumed = []

    def source():
        for k in range(3):
            consumed.append(k)
            yield k

    bar = track(source(), 3, "runs")
    assert consumed == []
    assert next(bar) == 0 and consumed == [0]
    bar.close()
