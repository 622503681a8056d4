#!/usr/bin/env node
// The CLI runs from its bundle (built by `npm run build`): CommonJS chunks that dist/bundle/bundle-loader.js compiles
// with the V8 code caches made beside them, which starts it in a fraction of the time of the module tree.
// With DT64_DEBUG=1 stacks are printed, mapped back to src/*.ts through the bundle's source maps.
import { fileURLToPath } from "node:url";

if (process.env.DT64_DEBUG === "1") process.setSourceMapsEnabled(true);
const { BundleLoader } = await import("../dist/bundle/bundle-loader.js");
const bundle = new BundleLoader(fileURLToPath(new URL("../dist/bundle/", import.meta.url)));
// An export whose chunks decode on the decode threads starts them first, to start while the CLI loads.
bundle.require("early-decode-threads.cjs").startDecodeThreadsEarly(process.argv.slice(2));
await bundle.require("dt64-export.cjs").main();
