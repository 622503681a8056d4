"""Reference zstd frames for the paths of the zstd decoder that its 64-bit bit containers change (test/zstd-decoder.test.ts).

    /usr/bin/python3 test/golden/make_zstd_fixtures.py

scripts/build-wasm-codecs.sh compiles zstd's decoder for wasm32 with 64-bit bit containers, so that it takes the
paths of a 64-bit build: the fast Huffman loops (4 streams, 1 or 2 symbols per table entry), sequences decoded with
fewer reloads, offsets of more than 25 bits read at once. These frames go through those paths; they are made by
Debian's python3-zstandard, which wraps libzstd 1.5.4, the version the WebAssembly is built from, compiled for
x86-64. Written to test/fixtures/zstd/: <case>.zst, and cases.json with the sha256 and length of each decoded frame
as libzstd decodes it.

`mutations` in cases.json: what native libzstd answers for 400 corrupted copies of one frame (the corruption is
made by a generator the test repeats: see mutate()): the sha256 of what it decodes, or "error". A decoder that takes
the paths of a 64-bit build answers the same; the 32-bit paths answered 245 of the 400 differently (mostly: an error where libzstd decodes).
"""

import hashlib
import json
import os

import numpy as np
import zstandard

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "fixtures", "zstd")
MUTATIONS = 400


def skewed_bytes(seed, n, symbols, exponent):
    """Bytes drawn from a Zipf-like law over `symbols` values: literals that zstd codes with Huffman tables."""
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, symbols + 1) ** exponent
    alphabet = rng.permutation(256)[:symbols].astype(np.uint8)
    return alphabet[rng.choice(symbols, size=n, p=weights / weights.sum())].tobytes()


def datetimes(n):
    i = np.arange(n, dtype=np.int64)
    return (1_700_000_000_000_000_000 + i * 1_000_000_000 + (i * 7919) % 1000).astype("<i8").tobytes()


def long_offset_data():
    """A 256 KiB random block, 33 MiB of zeros, then the block again: found only by a match 2**25 bytes away or more."""
    block = np.random.default_rng(11).integers(0, 256, 256 * 1024, dtype=np.uint8).tobytes()
    return block + bytes(33 * 1024 * 1024) + block


class Lcg:
    """The generator of the mutations, repeated by the test: x = x * 1103515245 + 12345 (mod 2**32)."""

    def __init__(self, seed):
        self.x = seed

    def next(self):
        self.x = (self.x * 1103515245 + 12345) % 2**32
        return self.x / 2**32


def mutate(frame, rng):
    """1 to 4 bytes changed (a bit flipped or a byte replaced), outside the 6-byte frame header; 1 in 10 cut short."""
    data = bytearray(frame)
    for _ in range(1 + int(rng.next() * 4)):
        at = 6 + int(rng.next() * (len(data) - 6))
        if rng.next() < 0.5:
            data[at] ^= 1 << int(rng.next() * 8)
        else:
            data[at] = int(rng.next() * 256)
    if rng.next() < 0.1:
        data = data[: 64 + int(rng.next() * (len(data) - 64))]
    return bytes(data)


def native_answer(frame, capacity):
    try:
        out = zstandard.ZstdDecompressor().decompress(frame, max_output_size=capacity)
    except zstandard.ZstdError:
        return "error"
    return hashlib.sha256(out).hexdigest()


def main():
    os.makedirs(OUT, exist_ok=True)
    cases = []

    def add(name, data, compressor):
        frame = compressor.compress(data)
        with open(os.path.join(OUT, f"{name}.zst"), "wb") as f:
            f.write(frame)
        decoded = zstandard.ZstdDecompressor().decompress(frame, max_output_size=len(data))
        assert decoded == data
        cases.append({"name": name, "length": len(data), "sha256": hashlib.sha256(data).hexdigest()})
        return frame

    few = skewed_bytes(1, 192 * 1024, 12, 1.3)
    many = skewed_bytes(2, 160 * 1024, 200, 0.9)
    for level in [1, 3, 19]:
        add(f"few-symbols-{level}", few, zstandard.ZstdCompressor(level=level))
        add(f"many-symbols-{level}", many, zstandard.ZstdCompressor(level=level))
    add("datetimes-3", datetimes(25_000), zstandard.ZstdCompressor(level=3))
    add("small-blocks-3", many[:40_000], zstandard.ZstdCompressor(level=3))
    ldm = zstandard.ZstdCompressionParameters.from_level(19, window_log=27, enable_ldm=True)
    frame = add("long-offset", long_offset_data(), zstandard.ZstdCompressor(compression_params=ldm))
    assert len(frame) < 300 * 1024, "the second block must be coded as one far match"

    base = "many-symbols-3"
    with open(os.path.join(OUT, f"{base}.zst"), "rb") as f:
        frame = f.read()
    rng = Lcg(2026)
    capacity = 160 * 1024
    mutations = [native_answer(mutate(frame, rng), capacity) for _ in range(MUTATIONS)]
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump({"libzstd": ".".join(map(str, zstandard.ZSTD_VERSION)), "cases": cases, "mutations": {"of": base, "seed": 2026, "capacity": capacity, "answers": mutations}}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
