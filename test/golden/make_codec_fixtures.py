"""Reference encoder outputs for the zstd, lz4 and blosc decoders (test/wasm-codecs.test.ts).

    /usr/bin/python3 test/golden/make_codec_fixtures.py

Encodes int64 data with Debian's numcodecs (its C zstd, lz4 and c-blosc) and writes each encoded chunk to
test/fixtures/codecs/<case>.bin, with test/fixtures/codecs/cases.json listing what each holds. The data is
value(i) = 1_700_000_000_000_000_000 + i * 1_000_000_000 + (i * 7919) % 1000, which the test computes itself,
except the `random` cases (bytes of a seeded generator, stored decoded too, as <case>.raw): blosc stores them
uncompressed ("memcpyed"). Sizes: 1 value, 1000, and 20011 (several blosc blocks and a short last one). The
`typesize` cases hold the same values as int16, int32 and float32 (stored decoded too): blosc's byte shuffle of 2- and
4-byte values, which the decoders unshuffle with code of their own (shuffle-simd.c).
"""

import json
import os

import numcodecs
import numpy as np
from numcodecs import LZ4, Blosc, Zstd

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "fixtures", "codecs")
SIZES = [1, 1000, 20011]


def values(n):
    i = np.arange(n, dtype=np.int64)
    return (1_700_000_000_000_000_000 + i * 1_000_000_000 + (i * 7919) % 1000).astype("<i8")


def main():
    os.makedirs(OUT, exist_ok=True)
    cases = []

    def add(name, codec, config, data, raw=False, extra=None):
        # An int64 array (unless a typesize case), so that blosc's typesize is 8 (its shuffles move whole values' bytes).
        encoded = codec.encode(data)
        with open(os.path.join(OUT, f"{name}.bin"), "wb") as f:
            f.write(encoded)
        if raw:
            with open(os.path.join(OUT, f"{name}.raw"), "wb") as f:
                f.write(data.tobytes())
        cases.append({"name": name, "codec": config["name"], "configuration": config.get("configuration", {}), "values": len(data), "random": raw and extra is None, **(extra or {})})

    for n in SIZES:
        data = values(n)
        for level in [0, 1, 19]:
            add(f"zstd-{level}-{n}", Zstd(level=level), {"name": "zstd", "configuration": {"level": level}}, data)
        for acceleration in [1, 10]:
            add(f"lz4-{acceleration}-{n}", LZ4(acceleration=acceleration), {"name": "lz4"}, data)
        for cname in Blosc.list_compressors() if hasattr(Blosc, "list_compressors") else numcodecs.blosc.list_compressors():
            for shuffle, shuffle_name in [(Blosc.NOSHUFFLE, "noshuffle"), (Blosc.SHUFFLE, "shuffle"), (Blosc.BITSHUFFLE, "bitshuffle")]:
                blocksize = 4096 if n == 20011 else 0
                config = {"name": "blosc", "configuration": {"cname": cname, "clevel": 5, "shuffle": shuffle_name, "typesize": 8, "blocksize": blocksize}}
                add(f"blosc-{cname}-{shuffle_name}-{n}", Blosc(cname=cname, clevel=5, shuffle=shuffle, blocksize=blocksize), config, data)
    for n in [1000, 20011]:
        for dtype in ["<i2", "<i4", "<f4"]:
            data = values(n).astype(dtype)
            size = data.dtype.itemsize
            for shuffle, shuffle_name in [(Blosc.SHUFFLE, "shuffle"), (Blosc.BITSHUFFLE, "bitshuffle")]:
                blocksize = 2048 if n == 20011 else 0
                config = {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": shuffle_name, "typesize": size, "blocksize": blocksize}}
                name = f"blosc-lz4-{shuffle_name}-{data.dtype.kind}{size}-{n}"
                add(name, Blosc(cname="lz4", clevel=5, shuffle=shuffle, blocksize=blocksize), config, data, raw=True, extra={"typesize": size})
    rng = np.random.default_rng(7)
    noise = np.frombuffer(rng.integers(0, 256, 8 * 5003, dtype=np.uint8).tobytes(), dtype="<i8")
    add("blosc-lz4-shuffle-random", Blosc(cname="lz4", clevel=5, shuffle=Blosc.SHUFFLE), {"name": "blosc", "configuration": {"cname": "lz4"}}, noise, raw=True)
    add("zstd-1-random", Zstd(level=1), {"name": "zstd", "configuration": {"level": 1}}, noise, raw=True)
    add("lz4-1-random", LZ4(), {"name": "lz4"}, noise, raw=True)
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump({"numcodecs": numcodecs.__version__, "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
