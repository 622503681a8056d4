"""Model-calendar CF time over whole years, decoded by cftime: the golden data of the model calendars' fast path.

Regenerate with Debian's python3 (zarr 2.13, cftime 1.6, numpy):

    /usr/bin/python3 test/golden/make_model_calendar_fixtures.py

It replaces test/fixtures/model-calendars/ (one Zarr v2 store per case, written with zarr-python 2 as xarray writes a
time coordinate: `_ARRAY_DIMENSIONS`, `units`, `calendar`) and writes expected.json: per case, the store's array and
each value's instant as `--convert-calendar` (xarray's `convert_calendar("proleptic_gregorian", align_on="date")`)
gives it: the cftime label of the count (`cftime.num2date`) read as the same proleptic Gregorian label, in whole
seconds since 1970-01-01T00:00:00 (every count here is a whole number of seconds), or null for a label the proleptic
Gregorian calendar lacks (an all_leap 29 February of a common year, a 360_day 29 or 30 February), which xarray drops.

The cases cover every day of ten years (the leap years 2000, 2004 and 2008 among them, 1900 and 2100 not), before
and after the reference date (negative counts), hourly counts every 5 hours from a reference at 06:00, int32 days and
float64 quarter days, for noleap, all_leap and 360_day.
"""

import json
import pathlib
import shutil

import cftime
import numpy as np
import zarr

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "fixtures" / "model-calendars"
EPOCH_ORDINAL = cftime.DatetimeProlepticGregorian(1970, 1, 1).toordinal()
CALENDARS = {"noleap": 365, "all_leap": 366, "360_day": 360}


def seconds(label) -> int | None:
    try:
        date = cftime.DatetimeProlepticGregorian(label.year, label.month, label.day, label.hour, label.minute, label.second)
    except ValueError:
        return None
    return (date.toordinal() - EPOCH_ORDINAL) * 86400 + date.hour * 3600 + date.minute * 60 + date.second


def case(expected: dict, name: str, counts: np.ndarray, units: str, calendar: str) -> None:
    store = zarr.open(str(OUT / f"{name}.zarr"), mode="w")
    # No fill value: a v2 array's fill_value is the _FillValue xarray masks (zarr-python 2's default 0 would be).
    time = store.create_dataset("time", data=counts, chunks=(1000,), fill_value=None)
    time.attrs.update({"_ARRAY_DIMENSIONS": ["time"], "units": units, "calendar": calendar})
    labels = cftime.num2date(counts, units, calendar)
    expected[name] = {"array": "time", "dtype": counts.dtype.str, "units": units, "calendar": calendar, "seconds": [seconds(label) for label in labels]}


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    expected: dict = {}
    for calendar, year_days in CALENDARS.items():
        tag = calendar.replace("_", "-")
        # Every day of 2000..2009, from a reference in 2005: counts from about -5 years to +5.
        case(expected, f"{tag}-days", np.arange(-5 * year_days, 5 * year_days, dtype="i8"), "days since 2005-01-01", calendar)
        # int32 days, as a netCDF file converted to Zarr keeps them.
        case(expected, f"{tag}-days-int32", np.arange(0, 2 * year_days, dtype="i4"), "days since 2003-03-01", calendar)
        # Every 5 hours over three years (2003..2005), from a reference at 06:00, before and after it.
        case(expected, f"{tag}-hours", np.arange(-36 * year_days, 36 * year_days, 5, dtype="i8"), "hours since 2004-07-01 06:00:00", calendar)
        # float64 quarter days over 2004.
        case(expected, f"{tag}-quarter-days", np.arange(0, year_days, 0.25, dtype="f8"), "days since 2004-01-01", calendar)
    (OUT / "expected.json").write_text(json.dumps(expected, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
