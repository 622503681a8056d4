"""Zarr v2 stores of 360_day (and all_leap) CF time written by xarray, and the dates xarray's
`Dataset.convert_calendar("proleptic_gregorian", align_on=...)` gives them: the golden data of `alignOn: "year"`
(`--convert-calendar --align-on year`) and of `dropInvalidDates` (`--convert-calendar --drop-invalid-dates`, aligned
on the date, which drops the rows of the dates the proleptic Gregorian calendar lacks).

Regenerate with Debian's python3 (xarray 2023.01, zarr 2.13, cftime 1.6, pandas 1.5):

    /usr/bin/python3 test/golden/make_calendar_align_fixtures.py

It replaces test/fixtures/calendar-align/ (one store per case) and writes test/fixtures/calendar-align/expected.json
(aligned on the year, 360_day stores only) and test/fixtures/calendar-align/expected-date.json (aligned on the date).
Each case is a dataset written with `Dataset.to_zarr` (zarr v2, consolidated metadata): a `time` coordinate of
counts with the CF attributes given (`calendar: "360_day"`), and a data variable `tas(time, station)` whose values
are the row numbers, so a row can be followed through the conversion.

Expected values, per case: "instants", the converted times as exact integer nanoseconds since 1970-01-01T00:00:00
(strings; null for a missing count), in the store's row order. xarray 2023.01 cannot decode a 360_day time holding a
missing value (cftime fails on it), so the counts that are not missing are decoded and converted alone, and the
missing ones are null. Dates pandas cannot hold (before 1678) come back as cftime dates, read through their Julian Day
Number (`toordinal()`) and time of day. The script checks that the conversion kept every row, in order: xarray's
`np.unique` (which drops duplicate times and sorts) changed nothing, so the mapping was injective and increasing.

Aligned on the date, per case: "dropped", the rows (times) convert_calendar left out; "frame", the columns of
`convert_calendar("proleptic_gregorian", align_on="date").to_dataframe().reset_index()` (time as exact integer
nanoseconds, text), every row. A store holding missing times (which xarray cannot decode) is converted without its
missing counts, and their rows are put back in place with a null time and their values: xarray's `where(drop=True)`
would drop them too (a NaT time), where dt64-export keeps a missing time as a null row and drops only dates that do
not exist.
"""

import json
import pathlib
import shutil
import warnings

import numpy as np
import xarray as xr

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "fixtures" / "calendar-align"
EPOCH_JDN = 2440588
STATIONS = 2

warnings.simplefilter("ignore")


def nanoseconds(date) -> int:
    if isinstance(date, np.datetime64):
        return int(date.astype("datetime64[ns]").astype(np.int64))
    seconds = (date.toordinal() - EPOCH_JDN) * 86400 + date.hour * 3600 + date.minute * 60 + date.second
    return seconds * 10**9 + date.microsecond * 1000


def converted(counts: np.ndarray, attributes: dict) -> list:
    """What convert_calendar(..., align_on="year") makes of the counts, one by one (in ns since 1970)."""
    ds = xr.Dataset({"row": ("time", np.arange(len(counts)))}, coords={"time": ("time", counts, attributes)})
    decoded = xr.decode_cf(ds)
    out = decoded.convert_calendar("proleptic_gregorian", align_on="year")
    rows = out.row.values.tolist()
    assert rows == list(range(len(counts))), "convert_calendar dropped or reordered rows"
    return [nanoseconds(v) for v in out.time.values]


CASES = {}
DATE_CASES = {}


def by_date(counts: np.ndarray, attributes: dict, tas: np.ndarray):
    """convert_calendar(..., align_on="date") of the counts with their tas: the rows kept, and the frame."""
    ds = xr.Dataset({"tas": (("time", "station"), tas), "row": ("time", np.arange(len(counts)))}, coords={"time": ("time", counts, attributes)})
    out = xr.decode_cf(ds).convert_calendar("proleptic_gregorian", align_on="date")
    kept = [int(row) for row in out.row.values]
    assert kept == sorted(kept), "convert_calendar reordered rows"
    frame = out[["tas"]].to_dataframe().reset_index()
    return kept, frame


def date_frame(name: str, counts: np.ndarray, attributes: dict, missing: np.ndarray, tas: np.ndarray, note: str) -> None:
    """The expected frame aligned on the date; missing counts put back as rows of a null time (see above)."""
    valid_rows = np.flatnonzero(~missing)
    kept, frame = by_date(counts[valid_rows], attributes, tas[valid_rows])
    kept_rows = set(int(valid_rows[k]) for k in kept)
    times = [nanoseconds(v) for v in frame["time"].values]
    values = frame["tas"].values.tolist()
    stations = frame["station"].values.tolist()
    rows_out = []
    taken = iter(range(len(times)))
    for row in range(len(counts)):
        if missing[row]:
            rows_out += [(None, station, float(tas[row, station])) for station in range(STATIONS)]
        elif row in kept_rows:
            for _ in range(STATIONS):
                k = next(taken)
                rows_out.append((str(times[k]), int(stations[k]), float(values[k])))
    dropped = [row for row in valid_rows.tolist() if row not in kept_rows]
    DATE_CASES[name] = {
        "units": attributes["units"],
        "calendar": attributes["calendar"],
        "rows": len(counts),
        "dropped": dropped,
        "frame": {"time": [r[0] for r in rows_out], "station": [r[1] for r in rows_out], "tas": [r[2] for r in rows_out]},
        "note": note,
    }


def write(name: str, counts: np.ndarray, units: str, fill_value=None, note: str = "", calendar: str = "360_day") -> None:
    attributes = {"units": units, "calendar": calendar}
    missing = np.zeros(len(counts), dtype=bool) if fill_value is None else counts == fill_value
    tas = np.arange(len(counts) * STATIONS, dtype=np.float32).reshape(len(counts), STATIONS)
    if calendar == "360_day":
        valid = converted(counts[~missing], attributes)
        instants = []
        taken = iter(valid)
        for is_missing in missing:
            instants.append(None if is_missing else str(next(taken)))
        CASES[name] = {"units": units, "dtype": str(counts.dtype), "rows": len(counts), "instants": instants, "note": note}
    date_frame(name, counts, attributes, missing, tas, note)
    ds = xr.Dataset({"tas": (("time", "station"), tas)}, coords={"time": ("time", counts, attributes)})
    encoding = {"time": {"chunks": (max(1, len(counts) // 5),)}, "tas": {"chunks": (max(1, len(counts) // 5), STATIONS)}}
    if fill_value is not None:
        encoding["time"]["_FillValue"] = fill_value
    ds.to_zarr(OUT / f"{name}.zarr", mode="w", encoding=encoding, consolidated=True)


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    # Two 360_day years, 2000 (leap in the target) and 2001 (common), daily at midnight: every day of the year,
    # the ties of round(366 * doy / 360) and round(365 * doy / 360) (half to even) among them.
    write("daily-leap-common", np.arange(720, dtype=np.int32), "days since 2000-01-01", note="daily, 2000 and 2001")
    # 6-hourly over 15 months from an odd reference date (30 February exists in 360_day), float hours, from
    # 1999-12-01: 1850-02-30 is day 60 of its year.
    start = ((1999 - 1850) * 360 + 330 - 59) * 24
    write("six-hourly-odd-reference", (start + 6 * np.arange(15 * 120)).astype(np.float64), "hours since 1850-02-30", note="6-hourly, 1999-12 to 2001-02")
    # Times of day and negative counts before a reference with an offset (-06:00 is added to the reference).
    write("negative-offset", (np.arange(-400, 300, dtype=np.int64) * 7), "hours since 2001-01-01 00:00:00 -06:00", note="7-hourly around 2001, offset reference")
    # Years 1 and 2 from `days since 0001-01-01` (before pandas' range: cftime dates), minutes with a _FillValue.
    minutes = np.arange(0, 720 * 1440, 1440 - 7, dtype=np.int32)
    minutes[[3, 100, 101, len(minutes) - 1]] = -999
    write("early-years-fill", minutes, "minutes since 0001-01-01", fill_value=np.int32(-999), note="years 1 and 2, missing values")
    # all_leap, daily over 2000 (leap) and 2001 (common): aligned on the date, 2001-02-29 has no row.
    write("all-leap-daily", np.arange(732, dtype=np.int64), "days since 2000-01-01", note="all_leap daily, 2000 and 2001", calendar="all_leap")
    (OUT / "expected.json").write_text(json.dumps(CASES, indent=1) + "\n")
    # One line per case: the frames are long.
    lines = ",\n".join(f"{json.dumps(name)}: {json.dumps(case, separators=(',', ':'))}" for name, case in DATE_CASES.items())
    (OUT / "expected-date.json").write_text("{\n" + lines + "\n}\n")


if __name__ == "__main__":
    main()
