/**
 * What a whole export (part 0/1, no `part` asked) killed outright leaves in the folder it created: the files it had
 * finished, at their names (a new dataset is written in place), a temporary file, the partition folders, its lock,
 * and no manifest. Its retry, the same command, finds the folder not empty; refusing it as someone else's data
 * made a batch engine's retry fail until an operator added `--force` (trial 26: 02). Such a folder is taken as the
 * run's own to replace, as `overwrite` replaces a dataset: written aside, then the leftovers cleared. Anything else
 * (a manifest, `_SUCCESS`, a file no part of 0/1 names, a folder that is no Hive partition) is still refused.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { isFileOfPart, lockPath, PARTS_FOLDER } from "./dataset-files.js";

const WHOLE = { index: 0, count: 1 };

/** `_parts/` entries a killed whole export leaves: its lock, and what it wrote aside replacing a dataset. */
const LEFT_IN_PARTS = new Set([path.basename(lockPath(WHOLE)), ".replacing"]);

/** Whether `folder` (which exists) holds only what a whole export that never finished left. */
export function holdsOnlyUnfinishedWholeExport(folder: string): boolean {
	let leftovers = 0;
	const onlyLeftovers = (relative: string): boolean => {
		for (const entry of fs.readdirSync(path.join(folder, relative), { withFileTypes: true })) {
			const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
			if (child === PARTS_FOLDER && entry.isDirectory()) {
				const names = fs.readdirSync(path.join(folder, PARTS_FOLDER));
				if (!names.every((name) => LEFT_IN_PARTS.has(name))) return false;
				leftovers += names.length;
			} else if (entry.isDirectory()) {
				if (!entry.name.includes("=") || !onlyLeftovers(child)) return false;
			} else if (entry.isFile() && isFileOfPart(child, WHOLE)) leftovers++;
			else return false;
		}
		return true;
	};
	return onlyLeftovers("") && leftovers > 0;
}
