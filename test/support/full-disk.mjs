// A disk that is full for some files: every write to a file whose name matches a pattern fails with ENOSPC, as
// write(2) does once a file system has no room left, while the other files are written. Used in-process by the
// library's tests (`failWritesTo`), and loaded into a CLI process (NODE_OPTIONS=--import) when DT64_TEST_FULL_DISK
// holds the pattern. The tests never mount a file system of their own.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import path from "node:path";

function noSpace() {
	return Object.assign(new Error("ENOSPC: no space left on device, write"), { errno: -28, code: "ENOSPC", syscall: "write" });
}

/** From now on, writes to files whose base name matches `pattern` fail; returns the function that undoes it. */
export function failWritesTo(pattern) {
	const { openSync, writev, writeSync } = fs;
	/** The descriptors of such files: a descriptor number used again by another file is taken out at its open. */
	const full = new Set();
	fs.openSync = function openSyncWatched(file, ...rest) {
		const fd = openSync.call(fs, file, ...rest);
		if (pattern.test(path.basename(String(file)))) full.add(fd);
		else full.delete(fd);
		return fd;
	};
	fs.writev = function writevOrFull(fd, buffers, ...rest) {
		if (!full.has(fd)) return writev.call(fs, fd, buffers, ...rest);
		const callback = rest[rest.length - 1];
		process.nextTick(callback, noSpace());
	};
	fs.writeSync = function writeSyncOrFull(fd, ...rest) {
		if (full.has(fd)) throw noSpace();
		return writeSync.call(fs, fd, ...rest);
	};
	// `import * as fs from "node:fs"` (the library's modules, the CLI's bundle) sees the patched functions only after this.
	syncBuiltinESMExports();
	return () => {
		Object.assign(fs, { openSync, writev, writeSync });
		syncBuiltinESMExports();
	};
}

if (process.env.DT64_TEST_FULL_DISK) failWritesTo(new RegExp(process.env.DT64_TEST_FULL_DISK));
