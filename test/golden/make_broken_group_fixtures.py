"""Groups xarray writes and then refuses to open once something else touched them, and what xarray says: the golden
data of the refusals and leniencies of `--columns` tables on them.

Regenerate with Debian's python3 (xarray 2023.01, zarr 2.13):

    /usr/bin/python3 test/golden/make_broken_group_fixtures.py

It replaces test/fixtures/broken-groups/ and writes test/fixtures/broken-groups/expected.json. Two stores (zarr v2,
written by xarray `to_zarr`, not consolidated):

- `interrupted.zarr`: `t2m(time=8, lat=2)` whose `time` coordinate holds 6 values, as an `append_dim="time"` write
  interrupted between the variables and their coordinate leaves it (the coordinate cut back with zarr's `resize`).
  xarray refuses the dataset ("conflicting sizes"): its message is kept.
- `unnamed.zarr`: `t2m(time, lat)` and `extra(lat)` by xarray, then `mask` (8 x 2, int8) and `w` (2 values) added
  with zarr-python without `_ARRAY_DIMENSIONS`, as a pipeline writing past xarray does. xarray refuses the group
  (its message kept); `--columns all` matches `mask` to `(time, lat)` by its shape and leaves `w` out. Expected:
  `ds[["t2m", "extra"]].to_dataframe().reset_index()` before the arrays were added, and `mask` as zarr reads it.
"""

import json
import pathlib
import shutil
import warnings

import numpy as np
import pandas as pd
import xarray as xr
import zarr

from golden_columns import spelled

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "fixtures" / "broken-groups"

warnings.simplefilter("ignore")



def refusal(store: pathlib.Path) -> str:
    try:
        xr.open_zarr(store, consolidated=False)
    except Exception as error:  # noqa: BLE001 - what xarray says is the golden text
        return f"{type(error).__name__}: {error}"
    raise SystemExit(f"xarray opened {store}: expected a refusal")


def dataset() -> xr.Dataset:
    rng = np.random.default_rng(9)
    time = pd.date_range("2024-01-01", periods=8, freq="D")
    return xr.Dataset(
        {"t2m": (("time", "lat"), rng.random((8, 2)).astype("float32")), "extra": (("lat",), np.array([5.0, 6.0]))},
        coords={"time": time, "lat": [1.0, 2.0]},
    )


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    ds = dataset()
    interrupted = OUT / "interrupted.zarr"
    ds[["t2m"]].to_zarr(interrupted, consolidated=False)
    zarr.open(str(interrupted / "time"), mode="r+").resize(6)

    unnamed = OUT / "unnamed.zarr"
    ds.to_zarr(unnamed, consolidated=False)
    table = xr.open_zarr(unnamed, consolidated=False)[["t2m", "extra"]].to_dataframe().reset_index()
    group = zarr.open_group(str(unnamed), mode="r+")
    mask = (np.arange(16).reshape(8, 2) % 3).astype("int8")
    group.create_dataset("mask", data=mask)
    group.create_dataset("w", data=np.arange(2.0))

    expected = {
        "interrupted": {"xarray": refusal(interrupted)},
        "unnamed": {
            "xarray": refusal(unnamed),
            "columns": {name: spelled(table[name].to_numpy()) for name in table.columns},
            "mask": spelled(mask.reshape(-1)),
        },
    }
    (OUT / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")


if __name__ == "__main__":
    main()
