import { Dt64ExportError } from "../errors.js";

/**
 * Text stored as fixed-width byte strings: numpy's `|S n` (zarr-python 3's v3 `null_terminated_bytes` with
 * `length_bytes` n) carrying xarray's `_Encoding` attribute, which is how xarray writes a variable encoded with
 * `{"dtype": "S1"}` (the encoding netCDF character arrays come with) and how it reads it back: each value's bytes
 * without their trailing NULs, decoded with the named codec. Only UTF-8 is read; other encodings, and byte strings
 * without `_Encoding` (raw bytes, which xarray leaves as bytes), are refused by the caller.
 */

/** Python's spellings of the UTF-8 codec that xarray's `bytes.decode(_Encoding)` accepts. */
const UTF8_NAMES = new Set(["utf-8", "utf8", "u8", "utf", "cp65001"]);

/** Whether an `_Encoding` attribute names UTF-8 as Python spells it (any case, `_` for `-`). */
export function isUtf8EncodingName(value: unknown): boolean {
	return typeof value === "string" && UTF8_NAMES.has(value.trim().toLowerCase().replaceAll("_", "-"));
}

/**
 * The strings of `count` values of `width` bytes each, as numpy and xarray read them: trailing NULs dropped (inner
 * ones kept), then UTF-8 decoded. Bytes that are no UTF-8 are refused (xarray raises UnicodeDecodeError), never
 * replaced.
 */
export function decodeEncodedBytesText(bytes: Uint8Array, width: number): string[] {
	const count = Math.floor(bytes.byteLength / width);
	const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
	const strings = new Array<string>(count);
	for (let i = 0; i < count; i++) {
		const start = i * width;
		let end = start + width;
		while (end > start && bytes[end - 1] === 0) end--;
		try {
			strings[i] = decoder.decode(bytes.subarray(start, end));
		} catch {
			throw new Dt64ExportError("CHUNK_CORRUPT", `value ${i} of the chunk is not UTF-8 text, which its _Encoding attribute says it is: bytes ${hexOf(bytes.subarray(start, end))}`);
		}
	}
	return strings;
}

function hexOf(bytes: Uint8Array): string {
	const shown = Array.from(bytes.subarray(0, 32), (byte) => byte.toString(16).padStart(2, "0")).join(" ");
	return bytes.byteLength > 32 ? `${shown} ...` : shown;
}
