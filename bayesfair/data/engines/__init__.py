"""The engines behind :func:`bayesfair.summarize`: one module each (NumPy, DuckDB, Dask,
Spark), every one reducing rows to the same :class:`~bayesfair.data.summary.ScoreSummary`.

Dask, Spark and DuckDB are imported inside the functions that use them.
"""
