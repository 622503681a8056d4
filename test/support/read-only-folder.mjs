// A folder on a read-only file system, as Node sees one: creating anything in it fails with EROFS, except that a
// recursive mkdir reports ENOENT (Node stats the folder after the failed mkdir, and returns that error: measured on
// a tmpfs remounted read-only, Node 20). Used in-process by the library's tests (`makeReadOnly`), and loaded into a
// CLI process (NODE_OPTIONS=--import) when DT64_TEST_READ_ONLY names the folder. The tests never mount anything.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import path from "node:path";

function readOnly(syscall, file) {
	return Object.assign(new Error(`EROFS: read-only file system, ${syscall} '${file}'`), { errno: -30, code: "EROFS", syscall, path: file });
}

function missing(syscall, file) {
	return Object.assign(new Error(`ENOENT: no such file or directory, ${syscall} '${file}'`), { errno: -2, code: "ENOENT", syscall, path: file });
}

/** From now on, `folder` and everything below it is read-only; returns the function that undoes it. */
export function makeReadOnly(folder) {
	const root = path.resolve(folder);
	const inside = (file) => {
		const resolved = path.resolve(String(file));
		return resolved === root || resolved.startsWith(root + path.sep);
	};
	const { mkdirSync, openSync, writeFileSync } = fs;
	fs.mkdirSync = function mkdirSyncReadOnly(file, options) {
		if (!inside(file) || fs.existsSync(file)) return mkdirSync.call(fs, file, options);
		const recursive = typeof options === "object" && options?.recursive === true;
		throw recursive ? missing("mkdir", String(file)) : readOnly("mkdir", String(file));
	};
	fs.openSync = function openSyncReadOnly(file, flags, ...rest) {
		if (inside(file) && flags !== undefined && flags !== "r") throw readOnly("open", String(file));
		return openSync.call(fs, file, flags, ...rest);
	};
	fs.writeFileSync = function writeFileSyncReadOnly(file, ...rest) {
		if (typeof file !== "number" && inside(file)) throw readOnly("open", String(file));
		return writeFileSync.call(fs, file, ...rest);
	};
	syncBuiltinESMExports();
	return () => {
		Object.assign(fs, { mkdirSync, openSync, writeFileSync });
		syncBuiltinESMExports();
	};
}

if (process.env.DT64_TEST_READ_ONLY) makeReadOnly(process.env.DT64_TEST_READ_ONLY);
