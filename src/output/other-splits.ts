/**
 * The runs of a dataset folder by their number of parts N: a dataset is the parts of one split (K/N, K = 0..N-1),
 * so manifests and data files of parts of another N, left by an earlier job, cannot be committed with this one's.
 * Said before a part writes anything, and by commit, with what to remove.
 */
import { listDataset, manifestsIn, partOfDataFile, PARTS_FOLDER } from "./dataset-files.js";

/** One N's manifests (`_parts/part-K-of-N.json`) and data files (relative to the folder) found in a folder. */
export interface Split {
	readonly count: number;
	readonly manifests: readonly string[];
	readonly dataFiles: readonly string[];
}

/** The splits whose manifests or data files are in `folder`, by N. */
export function splitsIn(folder: string): Split[] {
	const splits = new Map<number, { manifests: string[]; dataFiles: string[] }>();
	const of = (count: number) => splits.get(count) ?? splits.set(count, { manifests: [], dataFiles: [] }).get(count)!;
	for (const { name, count } of manifestsIn(folder)) of(count).manifests.push(`${PARTS_FOLDER}/${name}`);
	for (const file of listDataset(folder).dataFiles) of(partOfDataFile(file)!.count).dataFiles.push(file);
	return [...splits.entries()].sort(([a], [b]) => a - b).map(([count, found]) => ({ count, manifests: found.manifests, dataFiles: found.dataFiles }));
}

/** `4 parts (3 manifests _parts/part-K-of-4.json, 12 data files part-0000K-of-00004*)`: what to remove to drop it. */
export function describeSplit(split: Split): string {
	const found = [
		split.manifests.length === 0 ? undefined : `${split.manifests.length} manifest${split.manifests.length === 1 ? "" : "s"} ${PARTS_FOLDER}/part-K-of-${split.count}.json`,
		split.dataFiles.length === 0 ? undefined : `${split.dataFiles.length} data file${split.dataFiles.length === 1 ? "" : "s"} part-*-of-${String(split.count).padStart(5, "0")}*`,
	].filter((text) => text !== undefined);
	return `${split.count} part${split.count === 1 ? "" : "s"} (${found.join(", ")})`;
}
