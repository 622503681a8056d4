"""Reference for the benchmark: the same work as an export, done with numpy + zlib, chunk by chunk.

    python3 bench/reference.py <store.zarr> <output> [--no-fsync]

Reads the chunk files of a 1-D Zarr v3 numpy.datetime64 store (codecs: bytes, optionally gzip or zlib), inflates
them, finds NaT, converts to the unit dt64-export's `--unit auto` picks (numpy's astype, which floors), builds the
validity bitmap (LSB first, as Arrow) and writes values then bitmap for each chunk to <output>, then fsyncs it as
dt64-export does before its rename. With BENCH_RSS_FILE set, writes there its peak RSS in KiB, user and system CPU seconds
(as `/usr/bin/time -f "%M %U %S"` would).
"""

import json
import os
import sys
import zlib

import numpy as np

from report_rss import report_rss

AUTO_TARGET = {"Y": "s", "M": "s", "W": "s", "D": "s", "h": "s", "m": "s", "s": "s", "ms": "ms", "us": "us", "μs": "us",
               "ns": "ns", "ps": "ns", "fs": "ns", "as": "ns"}
NAT = np.iinfo(np.int64).min


def main(argv):
    fsync = "--no-fsync" not in argv
    store, output = [a for a in argv if not a.startswith("--")][:2]
    with open(os.path.join(store, "zarr.json"), "rb") as f:
        meta = json.load(f)
    (length,) = meta["shape"]
    (chunk,) = meta["chunk_grid"]["configuration"]["chunk_shape"]
    config = meta["data_type"]["configuration"]
    unit, scale = config["unit"], config.get("scale_factor", 1)
    target = AUTO_TARGET[unit]
    source_dtype = np.dtype(f"M8[{scale}{unit}]" if scale != 1 else f"M8[{unit}]")
    target_dtype = np.dtype(f"M8[{target}]")
    inflaters = []
    for codec in meta["codecs"]:
        if codec["name"] == "gzip":
            inflaters.append(lambda b: zlib.decompress(b, wbits=31))
        elif codec["name"] == "zlib":
            inflaters.append(zlib.decompress)
        elif codec["name"] != "bytes" or codec.get("configuration", {}).get("endian", "little") != "little":
            raise SystemExit(f"reference.py: codec {codec['name']} not handled")
    chunks = -(-length // chunk)
    with open(output, "wb") as out:
        for c in range(chunks):
            n = min(chunk, length - c * chunk)
            path = os.path.join(store, "c", str(c))
            if os.path.exists(path):
                with open(path, "rb") as f:
                    data = f.read()
                for inflate in reversed(inflaters):
                    data = inflate(data)
                counts = np.frombuffer(data, dtype="<i8", count=n)
            else:
                counts = np.full(n, NAT, dtype="<i8")
            isnat = counts == NAT
            if source_dtype != target_dtype:
                counts = counts.view(source_dtype).astype(target_dtype).view("<i8")
            validity = np.packbits(~isnat, bitorder="little")
            out.write(memoryview(counts))
            out.write(memoryview(validity))
        out.flush()
        if fsync:
            os.fsync(out.fileno())
    report_rss()


if __name__ == "__main__":
    main(sys.argv[1:])
