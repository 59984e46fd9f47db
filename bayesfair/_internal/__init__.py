"""The package's own plumbing, used by every layer and by no user: name matching,
argument checks and seeds, the progress bar, the result's container and its netCDF
file, and the primitives that render tables and figures."""
