"""A zip store as zarr-python's ZipStore writes it (ZIP_STORED, its default), for the zip entries' CRC-32 check.

Regenerate with Debian's python3 (zarr 2.13, numcodecs 0.11):

    /usr/bin/python3 test/golden/make_zip_crc_fixtures.py

It replaces test/fixtures/zip-crc/ and writes test/fixtures/zip-crc/expected.json.

- stored.zip: a group with `time` (`M8[s]`, 12 values in chunks of 4, no compressor: a chunk is its raw bytes, with
  no checksum of its own) and `v` (`<i4` over time, no compressor), consolidated. The tests flip one byte of a
  chunk entry's data in a copy: only the entry's CRC-32 in the zip's central directory can tell.
expected "time": the int64 counts as strings; "v": the numbers; "entries": each entry's CRC-32 as zipfile reads it.
"""

import json
import pathlib
import shutil
import zipfile

import numpy as np
import zarr

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "fixtures" / "zip-crc"

shutil.rmtree(OUT, ignore_errors=True)
OUT.mkdir(parents=True)

path = OUT / "stored.zip"
store = zarr.ZipStore(str(path), mode="w")
root = zarr.group(store=store)
t = root.create_dataset("time", shape=(12,), chunks=(4,), dtype="M8[s]", compressor=None)
t[:] = np.arange(1_600_000_000, 1_600_000_000 + 12 * 3600, 3600).astype("M8[s]")
t.attrs["_ARRAY_DIMENSIONS"] = ["time"]
v = root.create_dataset("v", shape=(12,), chunks=(4,), dtype="<i4", compressor=None)
v[:] = np.arange(12, dtype="<i4") * 7 - 30
v.attrs["_ARRAY_DIMENSIONS"] = ["time"]
zarr.consolidate_metadata(store)
store.close()

back = zarr.open_consolidated(zarr.ZipStore(str(path), mode="r"), mode="r")
with zipfile.ZipFile(path) as archive:
    infos = archive.infolist()
    assert all(info.compress_type == zipfile.ZIP_STORED for info in infos)
    entries = {info.filename: info.CRC for info in infos}
expected = {
    "time": [str(x) for x in back["time"][:].astype("i8")],
    "v": [int(x) for x in back["v"][:]],
    "entries": entries,
}
(OUT / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
print(json.dumps(expected))
