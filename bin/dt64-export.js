#!/usr/bin/env node
// The CLI runs from its bundle (built by `npm run build`): CommonJS chunks that dist/bundle/bundle-loader.js compiles
// with the V8 code caches made beside them, which starts it in a fraction of the time of the module tree.
// With DT64_DEBUG=1 stacks are printed, mapped back to src/*.ts through the bundle's source maps.
import { writeSync } from "node:fs";
import { fileURLToPath } from "node:url";

// Ctrl-C, SIGTERM and SIGHUP end the CLI with 130, 143 or 129 and one line whenever they come, also while it loads
// (half a second or more on a busy machine, before src/cli/interrupt.ts's handlers exist: a supervisor saw the process
// killed by the signal instead). Nothing is written yet then. Once the CLI has a handler of its own for a signal, it
// alone acts (it may have something to undo first); these act again only when it has none.
for (const [signal, status] of [
	["SIGINT", 130],
	["SIGTERM", 143],
	["SIGHUP", 129],
]) {
	process.on(signal, () => {
		if (process.listenerCount(signal) > 1) return;
		try {
			writeSync(2, `dt64-export: interrupted by ${signal}\n`);
		} catch {
			// stderr closed: the status says it.
		}
		process.exit(status);
	});
}
if (process.env.DT64_DEBUG === "1") process.setSourceMapsEnabled(true);
const { BundleLoader } = await import("../dist/bundle/bundle-loader.js");
const bundle = new BundleLoader(fileURLToPath(new URL("../dist/bundle/", import.meta.url)));
// An export whose chunks decode on the decode threads starts them first, to start while the CLI loads.
bundle.require("early-decode-threads.cjs").startDecodeThreadsEarly(process.argv.slice(2));
await bundle.require("dt64-export.cjs").main();
