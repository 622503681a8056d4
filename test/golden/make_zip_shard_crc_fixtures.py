"""A Zarr v3 sharded store in a zip of STORED entries, for the CRC-32 check of a shard read by ranges.

zarr-python 2.13 cannot write v3 shards: the store is written by the repo's own writer (scripts/lib/zarr-writer.mjs,
run with node), then zipped by Debian's python3 zipfile, ZIP_STORED, as zarr-python's ZipStore writes its entries
(the store at the top, entries in the order the folder lists them). Regenerate with:

    /usr/bin/python3 test/golden/make_zip_shard_crc_fixtures.py

It replaces test/fixtures/zip-shard-crc/ and writes test/fixtures/zip-shard-crc/expected.json.

- sharded.zip: a group with `time` (numpy.datetime64 unit s, 48 values, shards of 24, inner chunks of 8,
  inner codecs [bytes] alone: an inner chunk is its raw bytes, with no checksum of its own; the index's codecs
  zarr's default [bytes, crc32c]). A shard entry (time/c/0, time/c/1) is 3 inner chunks of 64 bytes, then the
  index (3 × 16 bytes and 4 of crc32c). The tests flip one byte of an inner chunk in a copy: only the entry's
  CRC-32 in the zip's central directory can tell.
expected "time": the int64 counts as strings (from the values written, read back by numpy from the raw inner
chunks of the zip); "entries": each entry's CRC-32 as zipfile reads it; "innerChunkBytes": an inner chunk's size.
"""

import json
import pathlib
import shutil
import subprocess
import tempfile
import zipfile

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
OUT = HERE.parent / "fixtures" / "zip-shard-crc"

WRITE = """
import { writeArray, writeGroup } from %s;
const [folder] = process.argv.slice(1);
await writeGroup(folder, "");
await writeArray(folder, "time", {
  shape: [48],
  chunks: [24],
  values: BigInt64Array.from({ length: 48 }, (_, i) => 1600000000n + BigInt(i) * 3600n),
  dimensionNames: ["time"],
  attributes: {},
  codecs: [{ name: "sharding_indexed", configuration: {
    chunk_shape: [8],
    codecs: [{ name: "bytes", configuration: { endian: "little" } }],
    index_codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }],
    index_location: "end",
  } }],
});
""" % json.dumps((ROOT / "scripts" / "lib" / "zarr-writer.mjs").as_uri())

shutil.rmtree(OUT, ignore_errors=True)
OUT.mkdir(parents=True)

with tempfile.TemporaryDirectory() as folder:
    subprocess.run(["node", "--input-type=module", "-e", WRITE, folder], check=True)
    names = sorted(str(p.relative_to(folder)) for p in pathlib.Path(folder).rglob("*") if p.is_file())
    path = OUT / "sharded.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive:
        for name in names:
            # A fixed date, so that the zip is the same each time it is made.
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            archive.writestr(info, (pathlib.Path(folder) / name).read_bytes(), compress_type=zipfile.ZIP_STORED)

with zipfile.ZipFile(path) as archive:
    infos = archive.infolist()
    assert all(info.compress_type == zipfile.ZIP_STORED for info in infos)
    entries = {info.filename: info.CRC for info in infos}
    values = []
    for shard in ("time/c/0", "time/c/1"):
        data = archive.read(shard)
        assert len(data) == 3 * 64 + 3 * 16 + 4
        index = np.frombuffer(data[3 * 64 : 3 * 64 + 48], dtype="<u8").reshape(3, 2)
        assert [int(x) for x in index[:, 0]] == [0, 64, 128] and all(int(x) == 64 for x in index[:, 1])
        values.extend(np.frombuffer(data[: 3 * 64], dtype="<i8"))
assert [int(x) for x in values] == [1_600_000_000 + i * 3600 for i in range(48)]
expected = {"time": [str(int(x)) for x in values], "entries": entries, "innerChunkBytes": 64}
(OUT / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
print(json.dumps(expected))
