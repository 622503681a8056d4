// A stand-in decode thread for test/decoder-pool.test.ts whose decoders' WebAssembly is not there, as in a bundled
// app: it reads it as decode-worker.js does at start, and so throws PACKAGE_FILE_MISSING before any chunk.
import { readDecoderBytes } from "../../dist/zarr/codecs/wasm/decoder-module.js";

readDecoderBytes(new URL("./no-such-decoders.wasm", import.meta.url));
