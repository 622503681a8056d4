"""A v2 store whose consolidated metadata lists arrays that have no folder, or no `.zarray`, of their own (trial 28: a
generated `.zmetadata` naming 45,000 variables none of which was written). zarr-python 2.13's open_consolidated and
xarray's open_zarr (consolidated, the default) read every array it lists (a missing chunk is the fill value);
open_zarr(consolidated=False) sees none of them. `--columns NAME` and `--columns all` must agree with the former.

Regenerate with Debian's python3 (xarray 2023.01, zarr 2.13):

    /usr/bin/python3 test/golden/make_consolidated_only_fixtures.py

It replaces test/fixtures/consolidated-only/ and writes expected.json: the data variables open_zarr sees with and
without the consolidated metadata, the arrays open_consolidated lists, and the table
`ds.to_dataframe().reset_index()` of open_zarr's dataset (every data variable, time as integer ns, strings).
"""

import json
import os
import pathlib
import shutil
import warnings

import numpy as np
import pandas as pd
import xarray as xr
import zarr

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "fixtures" / "consolidated-only"
STORE = OUT / "listed.zarr"

warnings.simplefilter("ignore")


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    time = pd.date_range("2024-01-01", periods=4, freq="D")
    values = lambda fill: xr.Variable("time", np.arange(4, dtype="float32"), encoding={"_FillValue": fill})
    ds = xr.Dataset({"t2m": values(np.nan), "unwritten": values(1.5), "no_zarray": values(-1.0)}, coords={"time": time})
    ds.to_zarr(STORE, consolidated=True)
    # An array listed, without any folder (no metadata document, no chunk): every value its fill value, 1.5.
    shutil.rmtree(STORE / "unwritten")
    # An array listed, whose folder holds its chunks and attributes but no .zarray.
    os.remove(STORE / "no_zarray" / ".zarray")
    opened = xr.open_zarr(STORE)
    frame = opened.to_dataframe().reset_index()
    expected = {
        "store": STORE.name,
        "open_consolidated": sorted(zarr.open_consolidated(str(STORE)).array_keys()),
        "data_vars": sorted(opened.data_vars),
        "consolidated_false": sorted(xr.open_zarr(STORE, consolidated=False).data_vars),
        "columns": {c: [str(v) for v in (frame[c].values.astype("datetime64[ns]").astype("int64") if c == "time" else frame[c].values.tolist())] for c in frame.columns},
    }
    (OUT / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
