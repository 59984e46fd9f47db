"""bayesfair's warnings and exceptions (:mod:`bayesfair.exceptions`), and
:func:`~bayesfair.exceptions.warnings_at_caller`, which re-raises the package's warnings at
the line that called a public function."""

import inspect
import warnings

import pytest

import bayesfair
import bayesfair.data
from bayesfair import exceptions
from bayesfair.exceptions import (
    CalibrationWarning,
    ChecksumError,
    InvalidParameterError,
    SamplingWarning,
    UndefinedRateWarning,
    warnings_at_caller,
)


# --------------------------------------------------------------------------- the classes
def test_every_name_in_all_is_a_documented_class_of_this_module():
    for name in exceptions.__all__:
        cls = getattr(exceptions, name)
        assert issubclass(cls, Exception), name
        assert cls.__module__ == "bayesfair.exceptions", name
        assert cls.__doc__, name
    warns = {n for n in exceptions.__all__ if n.endswith("Warning")}
    assert all(issubclass(getattr(exceptions, n), UserWarning) for n in warns)
    assert set(exceptions.__all__) - warns == {"ChecksumError", "InvalidParameterError"}


def test_invalid_parameter_error_is_caught_as_value_and_type_error():
    for base in (ValueError, TypeError):
        with pytest.raises(base, match="the 'x' parameter"):
            raise InvalidParameterError("the 'x' parameter")
    assert not issubclass(InvalidParameterError, Warning)


def test_checksum_error_is_an_os_error():
    with pytest.raises(OSError, match="does not match"):
        raise ChecksumError("SHA256SUMS does not match")


def test_the_warnings_have_one_home_and_the_package_names_the_calibration_warning():
    from bayesfair import metrics, posterior

    assert not hasattr(posterior, "SamplingWarning")
    assert not hasattr(metrics, "UndefinedRateWarning")
    assert bayesfair.CalibrationWarning is CalibrationWarning


# --------------------------------------------------------------------------- warnings_at_caller
def _next_line() -> int:
    """The number of the line after the caller's."""
    return inspect.currentframe().f_back.f_lineno + 1


def test_the_packages_warning_is_raised_at_the_callers_line():
    @warnings_at_caller
    def public(x):
        warnings.warn("the chains disagree", SamplingWarning, stacklevel=1)
        return 2 * x

    with pytest.warns(SamplingWarning, match="the chains disagree") as record:
        line = _next_line()
        out = public(21)
    assert out == 42
    assert len(record) == 1
    assert (record[0].filename, record[0].lineno) == (__file__, line)


def test_a_plain_warning_raised_in_the_package_is_raised_at_the_callers_line():
    inside = bayesfair.data.__file__

    @warnings_at_caller
    def public():
        warnings.warn_explicit("a note of the package", UserWarning, inside, 10)

    with pytest.warns(UserWarning, match="a note of the package") as record:
        line = _next_line()
        public()
    assert (record[0].filename, record[0].lineno) == (__file__, line)


def test_another_librarys_warning_keeps_its_place():
    @warnings_at_caller
    def public():
        warnings.warn_explicit("a library's notice", FutureWarning, "/site/lib/other.py", 7)

    with pytest.warns(FutureWarning, match="a library's notice") as record:
        public()
    assert (record[0].filename, record[0].lineno) == ("/site/lib/other.py", 7)


def test_the_callers_filters_decide():
    @warnings_at_caller
    def public():
        warnings.warn("the chains disagree", SamplingWarning, stacklevel=1)
        return "done"

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SamplingWarning)
        assert public() == "done"  # nothing raised: ignored where it is called
    with warnings.catch_warnings(), pytest.raises(SamplingWarning, match="chains disagree"):
        warnings.simplefilter("error", SamplingWarning)
        public()


def test_every_warning_inside_is_passed_on_in_order():
    @warnings_at_caller
    def public():
        for k in range(3):
            warnings.warn(f"warning {k}", SamplingWarning, stacklevel=1)
        warnings.warn("a rate is undefined", UndefinedRateWarning, stacklevel=1)

    with pytest.warns(UserWarning) as record:
        public()
    assert [str(w.message) for w in record] == [
        "warning 0",
        "warning 1",
        "warning 2",
        "a rate is undefined",
    ]
    assert [w.category for w in record] == [SamplingWarning] * 3 + [UndefinedRateWarning]


def test_the_warnings_before_an_error_are_passed_on_with_it():
    @warnings_at_caller
    def public():
        warnings.warn("before the error", SamplingWarning, stacklevel=1)
        raise InvalidParameterError("the 'x' parameter is wrong")

    with (
        pytest.warns(SamplingWarning, match="before the error"),
        pytest.raises(InvalidParameterError, match="'x' parameter"),
    ):
        public()


def test_the_decorated_function_keeps_its_name_and_docstring():
    def public(a, *, b=1):
        """Add."""
        return a + b

    wrapped = warnings_at_caller(public)
    assert wrapped.__name__ == "public" and wrapped.__doc__ == "Add."
    assert wrapped.__wrapped__ is public
    assert wrapped(1, b=2) == 3
