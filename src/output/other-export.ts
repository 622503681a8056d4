/**
 * A part run into a folder whose parts (of its N) were written with other options is another export, not a retry:
 * run, it would replace the files of its own earlier run (an earlier day's rows, another store's) and leave a folder
 * that cannot be committed. Refused before anything is read, naming the options that differ and the files it would
 * replace, unless the caller asks to overwrite (trial 19: 05). A retry (the same options' digest) replaces its own
 * files as always.
 */
import { formatIsoTimestamp } from "../convert/iso8601.js";
import { Dt64ExportError } from "../errors.js";
import { EXPORT_OPTION_NAMES } from "../export-plan.js";
import type { Part } from "../select/part.js";
import { ATTOSECONDS_PER_SECOND } from "../select/time-bounds.js";
import { manifestsIn } from "./dataset-files.js";
import { readManifest, type PartManifest } from "./manifest.js";

/**
 * Whether a key of the manifests' options is an export option, named as the library spells it (the CLI gives their
 * flags); the others (`store`, `conversion`, `output`) are the manifests' own words. From the export's one list of
 * option names, not a list of its own.
 */
const isOptionName = (key: string) => EXPORT_OPTION_NAMES.includes(key);

/** The manifests of `part`'s N in the folder (an unreadable one is commit's to refuse), by part index. */
function manifestsOfSplit(folder: string, part: Part): PartManifest[] {
	const manifests: PartManifest[] = [];
	for (const { file, count } of manifestsIn(folder)) {
		if (count !== part.count) continue;
		try {
			manifests.push(readManifest(file));
		} catch {
			// Not readable as a manifest: it says nothing of the options.
		}
	}
	return manifests.sort((a, b) => a.part - b.part);
}

/** A time bound as stored (attoseconds, decimal text) as ISO 8601; any other value as JSON. */
function describeValue(key: string, value: unknown): string {
	if (value === undefined) return "none";
	if ((key === "start" || key === "end") && typeof value === "string" && /^-?\d+$/.test(value)) {
		const attoseconds = BigInt(value);
		const perNs = ATTOSECONDS_PER_SECOND / 1_000_000_000n;
		if (attoseconds % perNs === 0n) return formatIsoTimestamp(attoseconds / perNs, "ns");
	}
	return JSON.stringify(value);
}

/** `` `start` 2021-01-01T00:00:00 (this run: 2021-01-02T00:00:00) ``, for each option that differs. */
function describeOptionChanges(before: Record<string, unknown>, now: Record<string, unknown>): string {
	// Sorted, but a range's start before its end.
	const rank = (key: string) => (key === "end" ? "start~" : key);
	const keys = [...new Set([...Object.keys(before), ...Object.keys(now)])].sort((a, b) => (rank(a) < rank(b) ? -1 : 1));
	const changed = keys.filter((key) => JSON.stringify(before[key]) !== JSON.stringify(now[key]));
	if (changed.length === 0) return "options of another version of this package";
	return changed.map((key) => `${isOptionName(key) ? `\`${key}\`` : key} ${describeValue(key, before[key])} (this run: ${describeValue(key, now[key])})`).join(", ");
}

/**
 * Refuses (OUTPUT_EXISTS, option `overwrite`) a run of `part` with the options `options` (as stored, digest `digest`)
 * into a folder holding another export: the export a folder holds is what the manifests of the other parts of the
 * same N record, or, when no other part has finished, what the part's own earlier run recorded. So a run whose other
 * parts ran its options replaces its own earlier run of other options (that run could never be committed with them).
 */
export function checkSameExport(folder: string, part: Part, options: Record<string, unknown>, digest: string): void {
	const manifests = manifestsOfSplit(folder, part);
	const others = manifests.filter((manifest) => manifest.part !== part.index);
	if ((others.length > 0 ? others : manifests).every((manifest) => manifest.optionsDigest === digest)) return;
	const other = manifests.filter((manifest) => manifest.optionsDigest !== digest);
	const own = manifests.find((manifest) => manifest.part === part.index && manifest.optionsDigest !== digest);
	const shown = own ?? other[0];
	const parts = other.map((manifest) => `${manifest.part}/${manifest.parts}`);
	const written = `${folder} holds part${parts.length === 1 ? "" : "s"} ${parts.join(", ")} of another export than this run of part ${part.index}/${part.count}, with other options: ${describeOptionChanges(shown.options ?? {}, options)}${other.length > 1 ? ` (part ${shown.part}/${shown.parts}'s)` : ""}`;
	const files = own?.files.map((file) => file.path) ?? [];
	const listed = files.slice(0, 3).join(", ") + (files.length > 3 ? `, and ${files.length - 3} more` : "");
	const consequence =
		own === undefined
			? `this part could not be committed with ${parts.length === 1 ? "it" : "them"}: write this export to another folder, or run it with \`overwrite\` and then every part with the same options`
			: `this run would replace or remove its ${files.length} file${files.length === 1 ? "" : "s"}${files.length === 0 ? "" : ` (${listed})`}, the rows of that export: write this export to another folder, or run it with \`overwrite\` to replace them`;
	throw new Dt64ExportError("OUTPUT_EXISTS", `${written}; ${consequence}`, { path: folder, option: "overwrite" });
}
