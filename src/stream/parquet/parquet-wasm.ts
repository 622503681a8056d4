import { Dt64ExportError } from "../../errors.js";
import { packageFileMissing } from "../../package-file.js";
import type { ParquetCompression } from "./options.js";

export type ParquetWasm = typeof import("parquet-wasm/node");

/**
 * parquet-wasm is loaded on first use: its module and WebAssembly cost every other export 40 ms of start-up.
 * Its glue reads parquet_wasm_bg.wasm beside itself (`__dirname`) as it loads: bundled into an app, that is a
 * ReferenceError (an ES module bundle has no __dirname) or ENOENT (a CommonJS bundle's folder). A failure to load
 * it is the package's files, not the output's: PACKAGE_FILE_MISSING, never WRITE_FAILED.
 */
let parquetWasm: Promise<ParquetWasm> | undefined;
export function loadParquetWasm(): Promise<ParquetWasm> {
	parquetWasm ??= import("parquet-wasm/node").catch((error: unknown) => {
		if (error instanceof Dt64ExportError) throw error;
		const reason = ((error as Error)?.message ?? String(error)).replace(/\s+/g, " ");
		throw packageFileMissing("parquet-wasm's parquet_wasm_bg.wasm (the WebAssembly of dt64-export's Parquet writer)", `cannot be loaded beside parquet-wasm's code (${reason})`, undefined, error);
	});
	return parquetWasm;
}

export function wasmCompression(wasm: ParquetWasm, name: ParquetCompression) {
	const byName = { zstd: wasm.Compression.ZSTD, snappy: wasm.Compression.SNAPPY, gzip: wasm.Compression.GZIP, none: wasm.Compression.UNCOMPRESSED };
	return byName[name];
}
