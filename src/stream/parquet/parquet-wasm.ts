import type { ParquetCompression } from "./options.js";

export type ParquetWasm = typeof import("parquet-wasm/node");

/** parquet-wasm is loaded on first use: its module and WebAssembly cost every other export 40 ms of start-up. */
let parquetWasm: Promise<ParquetWasm> | undefined;
export function loadParquetWasm(): Promise<ParquetWasm> {
	parquetWasm ??= import("parquet-wasm/node");
	return parquetWasm;
}

export function wasmCompression(wasm: ParquetWasm, name: ParquetCompression) {
	const byName = { zstd: wasm.Compression.ZSTD, snappy: wasm.Compression.SNAPPY, gzip: wasm.Compression.GZIP, none: wasm.Compression.UNCOMPRESSED };
	return byName[name];
}
