// Loaded into a CLI process by the tests (NODE_OPTIONS=--import): once a folder whose path matches
// DT64_TEST_UNCAUGHT_AFTER_FOLDER is created, an error that is none of the export's own is thrown outside any of its
// promises (as a bug in a callback would be): the process's uncaughtException handler gets it, mid-export.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

const pattern = new RegExp(process.env.DT64_TEST_UNCAUGHT_AFTER_FOLDER ?? "^$");
const { mkdirSync } = fs;
let thrown = false;
fs.mkdirSync = function mkdirSyncThenThrow(folder, ...rest) {
	const made = mkdirSync.call(fs, folder, ...rest);
	if (!thrown && pattern.test(String(folder))) {
		thrown = true;
		setImmediate(() => {
			throw new Error("a failure outside the export's promises");
		});
	}
	return made;
};
// `import * as fs from "node:fs"` (the CLI's bundle) sees the patched function only after this.
syncBuiltinESMExports();
