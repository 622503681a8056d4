// Loaded into a CLI process by the tests (NODE_OPTIONS=--import): every fs.writev starts a few milliseconds late,
// as on a slow disk. A buffer handed back to the export's BufferPool before its write is done is then filled with
// the next chunk's bytes before it is written, which a differential test sees; on a fast disk that race is rarely
// lost, and a test would pass by luck.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

// With DT64_TEST_WRITE_GATE, no write starts before that file exists: a test holds the process in its first write
// (a part run holding its lock, say) until it has seen what it waits for, whatever the time each process took.
const delayMs = Number(process.env.DT64_TEST_WRITE_DELAY_MS ?? 5);
const gate = process.env.DT64_TEST_WRITE_GATE;
const writev = fs.writev;
const start = (args) => setTimeout(() => writev.apply(fs, args), delayMs);
const whenOpen = (then) => (gate === undefined || fs.existsSync(gate) ? then() : setTimeout(() => whenOpen(then), 10));
fs.writev = function delayedWritev(...args) {
	whenOpen(() => start(args));
};
// `import * as fs from "node:fs"` (the CLI's bundle) sees the patched function only after this.
syncBuiltinESMExports();
