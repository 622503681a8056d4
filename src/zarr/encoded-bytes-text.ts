import { Dt64ExportError } from "../errors.js";

/**
 * Text stored as fixed-width byte strings: numpy's `|S n` (zarr-python 3's v3 `null_terminated_bytes` with
 * `length_bytes` n) carrying xarray's `_Encoding` attribute, which is how xarray writes a variable encoded with
 * `{"dtype": "S1"}` (the encoding netCDF character arrays come with) and how it reads it back: each value's bytes
 * without their trailing NULs, decoded with the named codec. Only UTF-8 is read; other encodings, and byte strings
 * without `_Encoding` (raw bytes, which xarray leaves as bytes), are refused by the caller. A fill value is the
 * base64 text of its bytes (as zarr-python writes it) and fills missing chunks, read as every value is; it masks
 * nothing, as in xarray 2023.01, which makes it the `_FillValue` but compares it, bytes, with the values once they
 * are decoded to str, which no bytes equal.
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

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The text of the fill value of byte strings `width` bytes wide, from the JSON text of its `fill_value` (base64 of
 * the bytes): the bytes without their trailing NULs, UTF-8 decoded, as a value of the array is read.
 */
export function encodedBytesFillText(text: string, width: number): string {
	const value: unknown = text.startsWith('"') ? JSON.parse(text) : undefined;
	if (typeof value !== "string" || !BASE64.test(value)) {
		throw new Dt64ExportError("METADATA_INVALID", `fill_value: expected the base64 text of ${width} bytes at most (as zarr writes the fill value of byte strings), got ${text}`, { field: "fill_value" });
	}
	const bytes = Buffer.from(value, "base64");
	if (bytes.byteLength > width) throw new Dt64ExportError("METADATA_INVALID", `fill_value: ${text} holds ${bytes.byteLength} bytes, more than the ${width} of the data type`, { field: "fill_value" });
	let end = bytes.byteLength;
	while (end > 0 && bytes[end - 1] === 0) end--;
	try {
		return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes.subarray(0, end));
	} catch {
		throw new Dt64ExportError("METADATA_INVALID", `fill_value: ${text} is not UTF-8 text, which the _Encoding attribute says the values are: bytes ${hexOf(bytes.subarray(0, end))}`, { field: "fill_value" });
	}
}
