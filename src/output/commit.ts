/**
 * `dt64-export commit <folder>`: checks that a dataset's parts are all there and agree, then marks it complete
 * with `_SUCCESS` (a JSON summary, as Spark's committers write). Nothing is marked otherwise: the refusal names
 * what is missing or wrong, so that the failed task can be run again.
 */
import { outputArgument } from "../call-arguments.js";
import * as fs from "node:fs";
import * as path from "node:path";
import { sumOverflowNulls, type OverflowNulls } from "../convert/overflow-nulls.js";
import { Dt64ExportError } from "../errors.js";
import { compareChunkKeys } from "../store/forbidden-chunks.js";
import { footerRowCount } from "../stream/parquet/footer.js";
import { strayTemporaryFiles, type StrayTemporaryFile } from "./atomic-file.js";
import { listDataset, manifestsIn, PARTS_FOLDER, SUCCESS_FILE } from "./dataset-files.js";
import { readManifest, writeJsonFile, type PartManifest, type SlicedTable } from "./manifest.js";
import { describeSplit, splitsIn } from "./other-splits.js";
import { checkLocalOutput } from "./output-path.js";
import { activeLocks, describeHolder, describeLock, hasEnded, readPartLocks, type FoundLock, type PartLock } from "./part-lock.js";

export interface CommitSummary {
	readonly committed: true;
	readonly parts: number;
	readonly files: number;
	readonly rows: number;
	/** Per column, the values the parts wrote as null because they overflowed (`onOverflow: "null"`), summed. */
	readonly overflowNulls: OverflowNulls;
	/**
	 * When a part ran with `--forbidden-as-missing`: the chunks the parts read as missing because S3 answered 403
	 * AccessDenied, summed over the parts (a chunk that two parts read, a coordinate every part reads, counts in
	 * each); absent when no part's manifest records them.
	 */
	readonly forbiddenChunks?: number;
	/** With `dropInvalidDates`: the rows the parts left out because their time coordinate's date does not exist, summed. */
	readonly droppedInvalidDates?: number;
	readonly optionsDigest: string;
	readonly timeUnit: string | null;
	readonly minTime: PartManifest["minTime"];
	readonly maxTime: PartManifest["maxTime"];
	/**
	 * Locks left in `_parts/` by runs of a part that ended without releasing them (killed), whose part had finished
	 * before: they change nothing a reader sees, and the part's next run takes them over. Not written to `_SUCCESS`.
	 */
	readonly staleLocks: readonly { readonly part: string; readonly file: string; readonly holder: string }[];
	/** With `forbiddenChunks`: the first keys the parts' manifests name, for the warning. Not written to `_SUCCESS`. */
	readonly forbiddenKeys?: readonly string[];
	/**
	 * The temporary files of a `_SUCCESS` or a part's manifest that a commit or a part's run killed outright left (see
	 * strayTemporaryFiles): named, never removed, as an export names those of its file. Not written to `_SUCCESS`.
	 */
	readonly strayTemporaryFiles: readonly StrayTemporaryFile[];
}

/** A manifest's temporary file, as AtomicFileWriter names it: `.part-K-of-N.json.<pid>.<hex>.tmp`. */
const MANIFEST_TEMP = /^\.(part-\d+-of-\d+\.json)\.\d+\.[0-9a-f]{8}\.tmp$/;

/**
 * The temporary files of the folder's own small files, `_SUCCESS` and the manifests, left by processes killed while
 * writing them (trial 26: 04: a commit killed outright left `._SUCCESS.<pid>.<hex>.tmp`, which nothing named or removed).
 */
function strayMarkerFiles(folder: string): StrayTemporaryFile[] {
	const partsFolder = path.join(folder, PARTS_FOLDER);
	const names = fs.existsSync(partsFolder) ? fs.readdirSync(partsFolder) : [];
	const manifests = new Set(names.flatMap((name) => MANIFEST_TEMP.exec(name)?.[1] ?? []));
	return [path.join(folder, SUCCESS_FILE), ...[...manifests].sort().map((name) => path.join(partsFolder, name))].flatMap((target) => strayTemporaryFiles(target));
}

/** The chunks the parts read as missing under `--forbidden-as-missing`, summed, and the keys they name; none recorded: {}. */
function forbiddenChunksOf(manifests: readonly PartManifest[]): { forbiddenChunks?: number; forbiddenKeys?: string[] } {
	const recorded = manifests.filter((manifest) => manifest.forbiddenChunks !== undefined);
	if (recorded.length === 0) return {};
	const keys = new Set(recorded.flatMap((manifest) => manifest.forbiddenKeys ?? []));
	return { forbiddenChunks: recorded.reduce((sum, manifest) => sum + manifest.forbiddenChunks!, 0), forbiddenKeys: [...keys].sort(compareChunkKeys) };
}

function refuse(folder: string, what: string): never {
	throw new Dt64ExportError("DATASET_INVALID", `cannot commit ${folder}: ${what}`, { path: folder });
}

/** A file's row count, from its Parquet footer or its Arrow IPC file footer. */
async function rowsOf(file: string): Promise<number> {
	const handle = fs.openSync(file, "r");
	try {
		const size = fs.fstatSync(handle).size;
		if (file.endsWith(".parquet")) {
			const tail = Buffer.alloc(Math.min(size, 8));
			fs.readSync(handle, tail, 0, tail.length, size - tail.length);
			const footer = tail.length === 8 ? tail.readUInt32LE(0) : 0;
			const bytes = Buffer.alloc(Math.min(size, footer + 8));
			fs.readSync(handle, bytes, 0, bytes.length, size - bytes.length);
			return footerRowCount(bytes, "found");
		}
		const { tableFromIPC } = await import("apache-arrow");
		return tableFromIPC(fs.readFileSync(file)).numRows;
	} finally {
		fs.closeSync(handle);
	}
}

/** The manifests present, by part index; they must all be of the same N. */
function readManifests(folder: string): PartManifest[] {
	const found = manifestsIn(folder);
	if (found.length === 0) refuse(folder, `no part has finished (${PARTS_FOLDER}/ holds no part-K-of-N.json): run the export, or each of its parts, again, then commit`);
	const manifests = found.map(({ name, file, index, count }) => {
		const manifest = readManifest(file);
		if (manifest.part !== index || manifest.parts !== count) refuse(folder, `${PARTS_FOLDER}/${name} describes part ${manifest.part} of ${manifest.parts}`);
		return manifest;
	});
	const counts = new Set(manifests.map((manifest) => manifest.parts));
	if (counts.size > 1) {
		const splits = splitsIn(folder).filter((split) => counts.has(split.count));
		refuse(folder, `the parts were run with different N: ${splits.map(describeSplit).join("; ")}: remove the manifests and data files of the run to drop (running its parts again does not), then commit`);
	}
	return manifests.sort((a, b) => a.part - b.part);
}

export async function commitDataset(folder: string): Promise<CommitSummary> {
	return commitDatasetHolding(outputArgument(folder, "folder"), undefined);
}

/**
 * commitDataset, by a run that holds a part's lock (`own`: a whole export commits itself); other parts' runs that
 * may still write refuse the commit: it would mark complete a dataset that is changing.
 */
export async function commitDatasetHolding(folder: string, own: PartLock | undefined): Promise<CommitSummary> {
	checkLocalOutput(folder);
	const stat = fs.statSync(folder, { throwIfNoEntry: false });
	// A path that does not exist is the not-found every command gives a missing path, not a folder found wanting.
	if (stat === undefined) throw new Dt64ExportError("STORE_NOT_FOUND", `cannot commit ${folder}: no such file or folder`, { path: folder });
	if (!stat.isDirectory()) throw new Dt64ExportError("DATASET_INVALID", `cannot commit ${folder}: not a folder`, { path: folder });
	const locks = await readPartLocks(folder);
	const active = activeLocks(locks, own);
	if (active.length > 0) {
		const elsewhere = active.some((lock) => lock.state !== "running");
		refuse(folder, `${active.map((lock) => `${describeLock(lock)} (lock ${lock.file})`).join("; ")}: wait for ${active.length === 1 ? "that export" : "those exports"} to end${elsewhere ? " (a lock that cannot be checked from here: remove it once sure that its export has ended)" : ""}, then commit`);
	}
	const stale = locks.filter(hasEnded);
	try {
		return await commitChecked(folder, stale, own);
	} catch (error) {
		// A commit that failed without finding the folder wanting (its _SUCCESS not written: a full disk, a file system
		// error) leaves the folder as it was: an earlier commit's _SUCCESS still says what it said, true as long as no
		// part has run since (a part's run removes it before it changes any file), and the new one, written aside and
		// renamed over it, was never half there.
		if (!(error instanceof Dt64ExportError) || error.code !== "DATASET_INVALID") throw error;
		// A refusal: an earlier commit's _SUCCESS would say complete what this one refuses; it goes, and the refusal says so.
		const removed = removeSuccess(folder);
		const unmarked = removed ? `; the ${SUCCESS_FILE} of an earlier commit was removed` : "";
		// A part killed leaves its lock: said with the refusal, since that part is likely the one to run again.
		const locksLeft = stale.length === 0 ? "" : `; ${stale.map((lock) => describeLock(lock)).join("; ")}`;
		if (unmarked === "" && locksLeft === "") throw error;
		throw new Dt64ExportError(error.code, `${error.message}${unmarked}${locksLeft}`, { path: error.path, cause: error.cause });
	}
}

/** Removes the folder's `_SUCCESS`; whether there was one. */
function removeSuccess(folder: string): boolean {
	const file = path.join(folder, SUCCESS_FILE);
	if (!fs.existsSync(file)) return false;
	fs.rmSync(file, { force: true });
	return true;
}

/** `time 1560 × x 4`. */
function describeTable(table: SlicedTable): string {
	return table.dimensions.length === 0 ? "a 0-d array" : table.dimensions.map((name, axis) => `${name} ${table.shape[axis]}`).join(" × ");
}

/** `parts 0/4, 1/4`. */
function describeParts(manifests: readonly PartManifest[]): string {
	return `part${manifests.length === 1 ? "" : "s"} ${manifests.map((manifest) => `${manifest.part}/${manifest.parts}`).join(", ")}`;
}

/**
 * The parts cut their slices from one table, one after the other: a part run after the store grew (an append along
 * time) or changed (its sorted time rewritten) cut its slice from another table, and the slices would leave rows out
 * or hold them twice. Manifests of earlier versions, which record neither, are not checked.
 */
function checkSlicesFit(folder: string, manifests: readonly PartManifest[]): void {
	const recorded = manifests.filter((manifest) => manifest.table !== undefined && manifest.rowRange !== undefined);
	if (recorded.length < 2) return;
	const byTable = new Map<string, PartManifest[]>();
	for (const manifest of recorded) {
		const key = JSON.stringify(manifest.table);
		byTable.set(key, [...(byTable.get(key) ?? []), manifest]);
	}
	if (byTable.size > 1) {
		const seen = [...byTable.values()].map((group) => `${describeParts(group)} read ${describeTable(group[0].table!)}`).join("; ");
		refuse(folder, `the store changed between the parts' runs (${seen}): their slices do not fit together; run every part again on the store as it is now`);
	}
	for (let k = 1; k < recorded.length; k++) {
		const before = recorded[k - 1];
		const after = recorded[k];
		if (after.part !== before.part + 1 || after.rowRange!.start === before.rowRange!.end) continue;
		const axis = before.table!.dimensions[0] ?? "axis 0";
		refuse(
			folder,
			`part ${before.part}/${before.parts} read rows ${before.rowRange!.start} to ${before.rowRange!.end} of ${axis} and part ${after.part}/${after.parts} from ${after.rowRange!.start}: their slices do not fit together (the store's time values changed between their runs?); run every part again on the store as it is now`,
		);
	}
}

/** The manifests' files as they are now: name and content, to tell whether a part's run changed them meanwhile. */
function manifestTexts(folder: string): string {
	return JSON.stringify(manifestsIn(folder).map(({ name, file }) => [name, fs.readFileSync(file, "utf8")]));
}

/**
 * After `_SUCCESS` is written: a part's run that started while the folder was being checked (a retry, a speculative
 * copy) took its lock (and, once its files were written aside, removed `_SUCCESS` and its manifest); the marker would
 * then say complete over a part being written. The locks and manifests are read again, and `_SUCCESS` goes if either
 * changed. A run that starts after this takes its lock first, and removes the marker itself before it moves its files in.
 */
async function checkUnchanged(folder: string, manifestsRead: string, own: PartLock | undefined): Promise<void> {
	const active = activeLocks(await readPartLocks(folder), own);
	const changed = manifestTexts(folder) !== manifestsRead;
	if (active.length === 0 && !changed) return;
	removeSuccess(folder);
	const what = active.length > 0 ? `${active.map((lock) => describeLock(lock)).join("; ")} started while the folder was being committed` : "a part's manifest changed while the folder was being committed";
	refuse(folder, `${what}: wait for the part's run to end, then commit again`);
}

async function commitChecked(folder: string, stale: readonly FoundLock[], own: PartLock | undefined): Promise<CommitSummary> {
	const manifestsRead = manifestTexts(folder);
	const manifests = readManifests(folder);
	const count = manifests[0].parts;
	const present = new Set(manifests.map((manifest) => manifest.part));
	const missing = Array.from({ length: count }, (_, k) => k).filter((k) => !present.has(k));
	if (missing.length > 0) {
		const shown = missing.slice(0, 5).map((k) => `${PARTS_FOLDER}/part-${k}-of-${count}.json`).join(", ") + (missing.length > 5 ? `, and ${missing.length - 5} more` : "");
		refuse(folder, `${missing.length} of ${count} parts have not finished: ${missing.map((k) => `${k}/${count}`).join(", ")} (no ${shown})`);
	}
	const digest = manifests[0].optionsDigest;
	const other = manifests.filter((manifest) => manifest.optionsDigest !== digest);
	if (other.length > 0) {
		refuse(folder, `parts ran different exports: ${other.map((m) => `${m.part}/${count}`).join(", ")} used other options than part 0/${count} (see "options" in their manifests); run them again with the same command`);
	}
	checkSlicesFit(folder, manifests);
	const listed = new Set<string>();
	for (const manifest of manifests) {
		for (const file of manifest.files) {
			const resolved = path.resolve(folder, file.path);
			if (path.isAbsolute(file.path) || !resolved.startsWith(path.resolve(folder) + path.sep)) refuse(folder, `part ${manifest.part}/${count} lists a file outside the folder: ${file.path}`);
			if (!fs.existsSync(resolved)) refuse(folder, `part ${manifest.part}/${count} lists ${file.path}, which does not exist`);
			let rows: number;
			try {
				rows = await rowsOf(resolved);
			} catch (error) {
				refuse(folder, `${file.path} is not a readable data file (${(error as Error).message}): run part ${manifest.part}/${count} again`);
			}
			if (rows !== file.rows) refuse(folder, `${file.path} holds ${rows} rows, its part ${manifest.part}/${count} says ${file.rows}`);
			listed.add(file.path);
		}
	}
	const listing = listDataset(folder);
	if (listing.tempFiles.length > 0) refuse(folder, `a part is still writing, or was killed while writing: ${listing.tempFiles.join(", ")} (run that part again)`);
	if (listing.otherDataFiles.length > 0) {
		const shown = listing.otherDataFiles.slice(0, 5).join(", ") + (listing.otherDataFiles.length > 5 ? `, and ${listing.otherDataFiles.length - 5} more` : "");
		refuse(folder, `files that readers of the dataset (DuckDB's and polars' **/*.parquet, Spark) would read as data, which no part wrote: ${shown} (move them out of the folder)`);
	}
	const stray = listing.dataFiles.filter((file) => !listed.has(file));
	if (stray.length > 0) refuse(folder, `data files that no finished part lists (a run with other parts or options?): ${stray.slice(0, 5).join(", ")}${stray.length > 5 ? `, and ${stray.length - 5} more` : ""}`);
	const times = manifests.flatMap((manifest) => [manifest.minTime, manifest.maxTime]).filter((time) => time !== null);
	const byValue = (a: { value: string }, b: { value: string }) => (BigInt(a.value) < BigInt(b.value) ? -1 : BigInt(a.value) > BigInt(b.value) ? 1 : 0);
	times.sort(byValue);
	const { forbiddenChunks, forbiddenKeys } = forbiddenChunksOf(manifests);
	// The parts agree on the options (their digest): leaving out dates, each counted what it left out.
	const dropping = manifests[0].options.dropInvalidDates === true;
	const uncounted = dropping ? manifests.find((manifest) => manifest.droppedInvalidDates === undefined) : undefined;
	if (uncounted !== undefined) refuse(folder, `part ${uncounted.part}/${count} leaves out the rows of dates that do not exist (dropInvalidDates) but its manifest does not count them (run that part again)`);
	const strayFiles = strayMarkerFiles(folder);
	const summary: Omit<CommitSummary, "staleLocks" | "forbiddenKeys" | "strayTemporaryFiles"> = {
		committed: true,
		parts: count,
		files: listed.size,
		rows: manifests.reduce((sum, manifest) => sum + manifest.rows, 0),
		overflowNulls: sumOverflowNulls(manifests.map((manifest) => manifest.overflowNulls)),
		...(forbiddenChunks === undefined ? {} : { forbiddenChunks }),
		...(dropping && { droppedInvalidDates: manifests.reduce((sum, manifest) => sum + (manifest.droppedInvalidDates ?? 0), 0) }),
		optionsDigest: digest,
		timeUnit: manifests[0].timeUnit,
		minTime: times[0] ?? null,
		maxTime: times[times.length - 1] ?? null,
	};
	await writeJsonFile(path.join(folder, SUCCESS_FILE), summary);
	await checkUnchanged(folder, manifestsRead, own);
	return {
		...summary,
		staleLocks: stale.map((lock) => ({ part: lock.part, file: lock.file, holder: describeHolder(lock.holder!) })),
		...(forbiddenKeys === undefined ? {} : { forbiddenKeys }),
		strayTemporaryFiles: strayFiles,
	};
}
