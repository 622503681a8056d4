"""Zarr v2 stores with numcodecs' 4-byte checksums CRC32 and Adler32, written by zarr-python 2, and what they read back.

Regenerate with Debian's python3 (numcodecs 0.11, zarr 2.13):

    /usr/bin/python3 test/golden/make_checksum_fixtures.py

It replaces test/fixtures/checksum32/ and writes test/fixtures/checksum32/expected.json. numcodecs 0.11 writes the
checksum (zlib.crc32, zlib.adler32) as 4 little-endian bytes before the data.

- crc32.zarr: `M8[s]` with CRC32 as a filter, no compressor; a missing chunk (fill value).
- adler32.zarr: `M8[ms]` with Adler32 alone as the compressor, NaT among the values.
- both.zarr: `<i4` (a companion column) with CRC32 then Adler32 as filters and Zlib as the compressor.
expected "values": what zarr.open(store)[:] reads (strings of the int64 counts, null for NaT; numbers for i4).
"""

import json
import pathlib
import shutil

import numcodecs
import numpy as np
import zarr

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "fixtures" / "checksum32"

shutil.rmtree(OUT, ignore_errors=True)
OUT.mkdir(parents=True)
expected = {}

def counts(values):
    return [None if np.isnat(v) else str(v.astype("i8")) for v in values]

z = zarr.open(str(OUT / "crc32.zarr"), mode="w", shape=(12,), chunks=(4,), dtype="M8[s]", filters=[numcodecs.CRC32()], compressor=None, fill_value=0)
z[:8] = np.arange(1_600_000_000, 1_600_000_008).astype("M8[s]")
expected["crc32.zarr"] = counts(zarr.open(str(OUT / "crc32.zarr"), mode="r")[:])

z = zarr.open(str(OUT / "adler32.zarr"), mode="w", shape=(8,), chunks=(3,), dtype="M8[ms]", compressor=numcodecs.Adler32())
values = np.array(["2020-01-01T00:00:00.001", "NaT", "1969-12-31T23:59:59.999", "2262-04-11", "NaT", "1677-09-22", "2000-02-29T12:00", "1970-01-01"], dtype="M8[ms]")
z[:] = values
expected["adler32.zarr"] = counts(zarr.open(str(OUT / "adler32.zarr"), mode="r")[:])

root = zarr.open_group(str(OUT / "both.zarr"), mode="w")
t = root.create_dataset("time", shape=(6,), chunks=(6,), dtype="M8[s]")
t[:] = np.arange(6).astype("M8[s]")
t.attrs["_ARRAY_DIMENSIONS"] = ["time"]
v = root.create_dataset("v", shape=(6,), chunks=(4,), dtype="<i4", filters=[numcodecs.CRC32(), numcodecs.Adler32()], compressor=numcodecs.Zlib(1))
v[:] = np.array([5, -6, 7, -8, 2**31 - 1, -(2**31)], dtype="<i4")
v.attrs["_ARRAY_DIMENSIONS"] = ["time"]
expected["both.zarr"] = [int(x) for x in zarr.open(str(OUT / "both.zarr"), mode="r")["v"][:]]

(OUT / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
print(json.dumps(expected))
