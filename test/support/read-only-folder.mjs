// A folder nothing can be created in, as Node sees one: on a read-only file system (EROFS) creating anything in it
// fails with EROFS, except that a recursive mkdir reports ENOENT (Node stats the folder after the failed mkdir, and
// returns that error: measured on a tmpfs remounted read-only, Node 20); without write permission (EACCES, what a
// user other than root meets in a folder of mode 555) every create fails with EACCES, a recursive mkdir included
// (measured as `nobody` in a 555 folder, Node 20). Used in-process by the library's tests (`makeReadOnly`), and
// loaded into a CLI process (NODE_OPTIONS=--import) when DT64_TEST_READ_ONLY names the folder
// (DT64_TEST_READ_ONLY_CODE=EACCES for the permission). The tests never mount anything, and root, which they may run
// as, ignores permissions: chmod could not make such a folder.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import path from "node:path";

const REASONS = {
	EROFS: { errno: -30, text: "read-only file system" },
	EACCES: { errno: -13, text: "permission denied" },
};

function refusal(code, syscall, file) {
	const { errno, text } = REASONS[code];
	return Object.assign(new Error(`${code}: ${text}, ${syscall} '${file}'`), { errno, code, syscall, path: file });
}

function missing(syscall, file) {
	return Object.assign(new Error(`ENOENT: no such file or directory, ${syscall} '${file}'`), { errno: -2, code: "ENOENT", syscall, path: file });
}

/**
 * From now on, nothing can be created in `folder` or below it, for `code`'s reason (EROFS: a read-only file system;
 * EACCES: no write permission); returns the function that undoes it.
 */
export function makeReadOnly(folder, code = "EROFS") {
	if (!(code in REASONS)) throw new Error(`makeReadOnly: no such reason ${code}`);
	const readOnly = (syscall, file) => refusal(code, syscall, file);
	const root = path.resolve(folder);
	const inside = (file) => {
		const resolved = path.resolve(String(file));
		return resolved === root || resolved.startsWith(root + path.sep);
	};
	const { mkdirSync, openSync, writeFileSync } = fs;
	fs.mkdirSync = function mkdirSyncReadOnly(file, options) {
		if (!inside(file) || fs.existsSync(file)) return mkdirSync.call(fs, file, options);
		const recursive = typeof options === "object" && options?.recursive === true;
		throw recursive && code === "EROFS" ? missing("mkdir", String(file)) : readOnly("mkdir", String(file));
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

if (process.env.DT64_TEST_READ_ONLY) makeReadOnly(process.env.DT64_TEST_READ_ONLY, process.env.DT64_TEST_READ_ONLY_CODE || "EROFS");
