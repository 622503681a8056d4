// Loaded into a CLI process by the tests (--import): says when the CLI is waiting for a FIFO's reader, by creating
// the file DT64_TEST_FIFO_WAITING the first time an open for writing without blocking (waitForReader's) fails with
// ENXIO (no reader yet). A test then signals the CLI while it waits, whatever the time its start took.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

const marker = process.env.DT64_TEST_FIFO_WAITING;
const openSync = fs.openSync;
fs.openSync = function openSyncSayingWaits(file, flags, ...rest) {
	try {
		return openSync.call(fs, file, flags, ...rest);
	} catch (error) {
		if (marker !== undefined && error?.code === "ENXIO" && typeof flags === "number" && (flags & fs.constants.O_NONBLOCK) !== 0 && !fs.existsSync(marker)) fs.writeFileSync(marker, String(file));
		throw error;
	}
};
// `import * as fs from "node:fs"` (the CLI's bundle) sees the patched function only after this.
syncBuiltinESMExports();
