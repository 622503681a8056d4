"""CRC-32C (Castagnoli), as Zarr v3's `crc32c` codec appends it: for the Python scripts that write stores by hand
(test/golden/make_transpose_sharding_fixtures.py, bench/lib/codec-stores.py), whose Debian numcodecs (0.11) has no
CRC32C codec. Each adds this folder to sys.path to import it.
"""


def crc32c(data) -> int:
    """The CRC-32C of `data` (bytes), bit by bit with the reflected polynomial 0x82F63B78."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF
