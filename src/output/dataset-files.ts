/**
 * Names and listing of a dataset folder's files. Data files are named after the part that wrote them
 * (`part-00003-of-00016.parquet`, then `part-00003-of-00016-00001.parquet` for a second file of the same partition),
 * so that N processes never write the same name, and a part run again writes the same names it wrote before.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Part } from "../select/part.js";

export const PARTS_FOLDER = "_parts";
export const SUCCESS_FILE = "_SUCCESS";

const pad = (value: number) => String(value).padStart(5, "0");

/** The prefix every data file of `part` starts with. */
function partFilePrefix(part: Part): string {
	return `part-${pad(part.index)}-of-${pad(part.count)}`;
}

/** The name of the `sequence`-th file (0-based) that `part` writes in one partition. */
export function partFileName(part: Part, sequence: number, extension: string): string {
	return `${partFilePrefix(part)}${sequence === 0 ? "" : `-${pad(sequence)}`}.${extension}`;
}

/** `_parts/part-K-of-N.json`, relative to the dataset folder. */
export function manifestPath(part: Part): string {
	return `${PARTS_FOLDER}/part-${part.index}-of-${part.count}.json`;
}

/**
 * `_parts/part-K-of-N.lock`, relative to the dataset folder: held while a run of the part writes (see part-lock.ts).
 * In `_parts/`, beside the manifests, which readers skip (Spark skips names starting with `_`; the `.parquet` glob
 * of DuckDB and polars matches no `.lock`), and so do commit's checks of the data files.
 */
export function lockPath(part: Part): string {
	return `${PARTS_FOLDER}/part-${part.index}-of-${part.count}.lock`;
}

/**
 * `_parts/.replacing-part-K-of-N`, relative to the dataset folder: where a run of the part writes its files aside
 * until every one is written (see DatasetWriterOptions.replacing). In `_parts/`, which readers and commit's checks
 * of the data files skip; the next run of the part removes what a run killed outright left there.
 */
export function partStagingPath(part: Part): string {
	return `${PARTS_FOLDER}/.replacing-part-${part.index}-of-${part.count}`;
}

const MANIFEST_NAME = /^part-(\d+)-of-(\d+)\.json$/;

/** A part's manifest found in a dataset folder: its name in `_parts/`, its path, and the part K/N its name says. */
export interface FoundManifest {
	readonly name: string;
	readonly file: string;
	readonly index: number;
	readonly count: number;
}

/** The manifests (`_parts/part-K-of-N.json`) in a dataset folder, sorted by name; none when it has no `_parts/`. */
export function manifestsIn(folder: string): FoundManifest[] {
	const partsFolder = path.join(folder, PARTS_FOLDER);
	const names = fs.existsSync(partsFolder) ? fs.readdirSync(partsFolder).sort() : [];
	return names.flatMap((name) => {
		const match = MANIFEST_NAME.exec(name);
		return match === null ? [] : [{ name, file: path.join(partsFolder, name), index: Number(match[1]), count: Number(match[2]) }];
	});
}
export const LOCK_NAME = /^part-(\d+)-of-(\d+)\.lock$/;
const DATA_FILE = /^part-(\d{5})-of-(\d{5})(?:-\d{5})?\.(?:parquet|arrow)$/;
/** AtomicFileWriter's temporary files: `.<name>.<pid>.<random>.tmp`. */
const TEMP_FILE = /^\.part-\d{5}-of-\d{5}.*\.tmp$/;

/** Names a reader's glob of a dataset (all .parquet files below the folder, say) takes for data, whoever wrote them. */
const READABLE_FILE = /\.(?:parquet|arrow|ipc|feather)$/i;

export interface DatasetListing {
	/** Data files written by some part, relative to the folder with `/` separators. */
	readonly dataFiles: string[];
	/** Temporary files of parts still writing, or killed while writing. */
	readonly tempFiles: string[];
	/** Other files of a data file's extension (not named as a part names its files): readers would read them too. */
	readonly otherDataFiles: string[];
}

/** The data and temporary files under a dataset folder (its `_parts` folder aside). */
export function listDataset(folder: string): DatasetListing {
	const dataFiles: string[] = [];
	const tempFiles: string[] = [];
	const otherDataFiles: string[] = [];
	const visit = (relative: string) => {
		for (const entry of fs.readdirSync(path.join(folder, relative), { withFileTypes: true })) {
			const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
			if (entry.isDirectory()) {
				if (child !== PARTS_FOLDER) visit(child);
			} else if (DATA_FILE.test(entry.name)) dataFiles.push(child);
			else if (TEMP_FILE.test(entry.name)) tempFiles.push(child);
			else if (READABLE_FILE.test(entry.name)) otherDataFiles.push(child);
		}
	};
	if (fs.existsSync(folder)) visit("");
	return { dataFiles: dataFiles.sort(), tempFiles: tempFiles.sort(), otherDataFiles: otherDataFiles.sort() };
}

/** The part K/N a data file's name (a path relative to the folder, as listDataset gives it) says wrote it. */
export function partOfDataFile(relative: string): { readonly index: number; readonly count: number } | undefined {
	const match = DATA_FILE.exec(relative.slice(relative.lastIndexOf("/") + 1));
	return match === null ? undefined : { index: Number(match[1]), count: Number(match[2]) };
}

/** Whether a dataset file (data or temporary) was written by `part`. */
export function isFileOfPart(relative: string, part: Part): boolean {
	const name = relative.slice(relative.lastIndexOf("/") + 1);
	const prefix = partFilePrefix(part);
	return name.startsWith(`${prefix}.`) || name.startsWith(`${prefix}-`) || name.startsWith(`.${prefix}.`) || name.startsWith(`.${prefix}-`);
}
