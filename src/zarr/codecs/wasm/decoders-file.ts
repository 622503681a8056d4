import { packageFile } from "../../../package-file.js";

export const DECODERS_WASM_SUBJECT = "dt64-export's decoders.wasm (its zstd, lz4 and blosc decoders' WebAssembly)";

let located: URL | undefined;

/**
 * The decoders' WebAssembly (scripts/build-wasm-codecs.sh), beside this module: in src/, in dist/ and in the CLI
 * bundle's folder (`npm run build` copies it to both). Read from its file, not embedded as base64 in a module, which
 * cost each decode thread 3-6 MiB and a few ms to parse and decode. Refused when it is not there (see
 * package-file.ts); found once per thread.
 */
export function decodersWasmFile(): URL {
	// import.meta.url is undefined in a CommonJS bundle, though TypeScript types it as a string.
	located ??= packageFile(DECODERS_WASM_SUBJECT, import.meta.url as string | undefined, () => new URL("./decoders.wasm", import.meta.url));
	return located;
}
