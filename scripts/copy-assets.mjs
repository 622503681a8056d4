// Copies the files tsc does not emit, which modules of dist/ read beside themselves, from src/ to the same place in
// dist/: the decoders' WebAssembly (src/zarr/codecs/wasm/decoders.wasm). Run by `npm run build` after tsc.
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const ASSETS = /\.wasm$/;

for (const file of fs.readdirSync(path.join(root, "src"), { recursive: true })) {
	if (!ASSETS.test(file)) continue;
	const target = path.join(root, "dist", file);
	fs.mkdirSync(path.dirname(target), { recursive: true });
	fs.copyFileSync(path.join(root, "src", file), target);
}
