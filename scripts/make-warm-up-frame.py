#!/usr/bin/python3
"""Writes src/zarr/codecs/wasm/warm-up-frame.ts: the zstd frame a decode thread decodes a few times while it waits for
its first chunk (see src/zarr/codecs/wasm/warm-up.ts), made with a 1 KiB window (window_log 10) so that the thread
decodes it in steps, by the streaming decoder (zstd_stream_step) an 8 MB chunk is decoded by, whose functions a frame
decoded whole never runs. 8,192 datetime64[ns] counts as the bench's stores hold them (one a second with up to 0.4 s
of jitter, 1% NaT: warmUpValues in scripts/warm-up-values.mjs, which test/warm-up-frame.test.ts checks the frame
decodes to), at zstd's level 3 (numcodecs' level 0, zarr-python 3's default). Run with Debian's /usr/bin/python3
(python3-zstandard): `/usr/bin/python3 scripts/make-warm-up-frame.py`. Deterministic.
"""
import base64
import os
import struct

import zstandard

LENGTH = 8192
MASK = 0xFFFF_FFFF_FFFF_FFFF


def warm_up_values(length=LENGTH):
    """The same values as warmUpValues in scripts/warm-up-values.mjs (a 64-bit linear congruential generator)."""
    values = []
    state = 0x2545F491
    for i in range(length):
        state = (state * 6364136223846793005 + 1442695040888963407) & MASK
        jitter = ((state >> 20) % 800_000_000) - 400_000_000
        nat = (state >> 57) % 100 == 0
        values.append(-(2**63) if nat else 1_700_000_000_000_000_000 + i * 1_000_000_000 + jitter)
    return values


def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def main():
    raw = struct.pack(f"<{LENGTH}q", *warm_up_values())
    params = zstandard.ZstdCompressionParameters.from_level(3, window_log=10, write_content_size=True, write_checksum=False)
    frame = zstandard.ZstdCompressor(compression_params=params).compress(raw)
    text = base64.b64encode(frame).decode("ascii")
    lines = [text[k : k + 116] for k in range(0, len(text), 116)]
    body = " +\n".join(f'\t"{line}"' for line in lines)
    out = f"""// Made by scripts/make-warm-up-frame.py: do not edit.
/**
 * A zstd frame of {LENGTH} datetime64[ns] counts as a chunk of the bench's stores holds them ({len(frame)} bytes, {len(raw)}
 * decoded, a window of 1 KiB: decoded in steps), which a decode thread decodes a few times while it waits for its
 * first chunk (see warm-up.ts).
 */
export const WARM_UP_ZSTD_FRAME =
{body};

/** The frame's decoded bytes, and their CRC-32C. */
export const WARM_UP_DECODED_BYTES = {len(raw)};
export const WARM_UP_DECODED_CRC32C = 0x{crc32c(raw):08x};
"""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "src/zarr/codecs/wasm/warm-up-frame.ts"), "w") as f:
        f.write(out)
    print(f"src/zarr/codecs/wasm/warm-up-frame.ts: {len(frame)} bytes of frame, {len(raw)} decoded")


if __name__ == "__main__":
    main()
