"""Reference zstd frames for the paths of the zstd decoder that its 64-bit bit containers change (test/zstd-decoder.test.ts).

    /usr/bin/python3 test/golden/make_zstd_fixtures.py

scripts/build-wasm-codecs.sh compiles zstd's decoder for wasm32 with 64-bit bit containers, so that it takes the
paths of a 64-bit build: the fast Huffman loops (4 streams, 1 or 2 symbols per table entry), sequences decoded with
fewer reloads, offsets of more than 25 bits read at once. These frames go through those paths; they are made by
Debian's python3-zstandard, which wraps libzstd 1.5.4, the version the WebAssembly is built from, compiled for
x86-64. Written to test/fixtures/zstd/: <case>.zst, and cases.json with the sha256 and length of each decoded frame
as libzstd decodes it.

The "window-" frames are written with a small window (Window_Size below the content size), so that the decoder
decodes them in steps (decoder-module.ts, with a small output window in the test): a frame with a checksum, one
without a declared content size, several frames with a skippable frame between, and a run of zeros (RLE blocks)
before random bytes, where the output runs far ahead of the input it is decoded from.

`mutations` in cases.json: what native libzstd answers for 400 corrupted copies of one frame (the corruption is
made by a generator the test repeats: see mutate()): the sha256 of what it decodes, or "error". A decoder that takes
the paths of a 64-bit build answers the same; the 32-bit paths answered 245 of the 400 differently (mostly: an error where libzstd decodes).
"""

import hashlib
import io
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


def native_answers(frame, capacity, seed):
    rng = Lcg(seed)
    return [native_answer(mutate(frame, rng), capacity) for _ in range(MUTATIONS)]


def native_answer(frame, capacity):
    try:
        out = zstandard.ZstdDecompressor().decompress(frame, max_output_size=capacity)
    except zstandard.ZstdError:
        return "error"
    return hashlib.sha256(out).hexdigest()


def main():
    os.makedirs(OUT, exist_ok=True)
    cases = []

    def add(name, data, compressor, frame=None):
        frame = compressor.compress(data) if frame is None else frame
        with open(os.path.join(OUT, f"{name}.zst"), "wb") as f:
            f.write(frame)
        # Every frame of the buffer, as libzstd's streaming decoder reads them (decompress() stops after the first).
        decoded = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(frame), read_across_frames=True).read()
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

    def windowed(level, window_log, **options):
        params = zstandard.ZstdCompressionParameters.from_level(level, window_log=window_log, **options)
        return zstandard.ZstdCompressor(compression_params=params)

    add("window-12-many-symbols-3", many, windowed(3, 12))
    add("window-14-datetimes-checksum", datetimes(25_000), windowed(3, 14, write_checksum=1))
    add("window-13-no-content-size", few, windowed(3, 13, write_content_size=0))
    skippable = (0x184D2A53).to_bytes(4, "little") + (5).to_bytes(4, "little") + b"skip!"
    parts = [few[:70_000], many[:50_000]]
    frames = windowed(3, 12).compress(parts[0]) + skippable + windowed(1, 11, write_content_size=0).compress(parts[1])
    add("window-multi-frame", b"".join(parts), None, frames)
    zeros_then_random = bytes(150_000) + np.random.default_rng(5).integers(0, 256, 40_000, dtype=np.uint8).tobytes()
    add("window-12-zeros-then-random", zeros_then_random, windowed(3, 12))

    capacity = 160 * 1024
    mutation_sets = {}
    for key, base, seed in [("mutations", "many-symbols-3", 2026), ("windowedMutations", "window-12-many-symbols-3", 2027)]:
        with open(os.path.join(OUT, f"{base}.zst"), "rb") as f:
            frame = f.read()
        mutation_sets[key] = {"of": base, "seed": seed, "capacity": capacity, "answers": native_answers(frame, capacity, seed)}
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump({"libzstd": ".".join(map(str, zstandard.ZSTD_VERSION)), "cases": cases, **mutation_sets}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
