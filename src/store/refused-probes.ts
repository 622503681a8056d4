/**
 * The metadata probes of a store (zarr.json, .zarray, .zgroup, .zattrs, .zmetadata) that were refused with a 403
 * that may be a missing key (RefusedKeyError). A probe is a guess: a v2 store has no zarr.json, a v3 one no
 * .zarray, so probing through a bucket that answers 403 for missing keys meets such refusals on every store. Each
 * is read as absent and kept here, by node, so that a node found nowhere is reported as the refusal it may be
 * rather than as a node that is not there.
 */
import { Dt64ExportError } from "../errors.js";
import { MISSING_KEYS_ANSWER_403, type RefusedKeyError } from "./refused-key.js";

/** Per opened store (weakly: the record goes with the store), per node path, the refusals in the order met. */
const refusals = new WeakMap<object, Map<string, RefusedKeyError[]>>();

export function recordRefusedProbe(store: object, nodePath: string, error: RefusedKeyError): void {
	let byNode = refusals.get(store);
	if (byNode === undefined) {
		byNode = new Map();
		refusals.set(store, byNode);
	}
	const list = byNode.get(nodePath) ?? [];
	// A document is read once per store (metadata-documents.ts): a second reader meets the same refusal again.
	if (!list.includes(error)) list.push(error);
	byNode.set(nodePath, list);
}

/**
 * The error for a node whose metadata was found nowhere: `notFound` when every probe was answered "absent", or
 * ACCESS_DENIED when some were refused, saying that the node may be missing or the credentials refused.
 */
export function nodeNotFound(store: object, location: string, nodePath: string, notFound: () => Dt64ExportError): Dt64ExportError {
	const refused = refusals.get(store)?.get(nodePath);
	if (refused === undefined || refused.length === 0) return notFound();
	const files = [...new Set(refused.map((error) => (error.key ?? "").split("/").pop()))].join(", ");
	const [first] = refused;
	const where = `${location}${nodePath === "" ? "" : `/${nodePath}`}`;
	return new Dt64ExportError(
		"ACCESS_DENIED",
		`${where}: no Zarr metadata could be read (${files} answered 403 AccessDenied); ${MISSING_KEYS_ANSWER_403}, so the ${nodePath === "" ? "store" : "node"} may be missing or the credentials refused: ${first.message}`,
		{ path: first.path, key: first.key, ...(first.option === undefined ? {} : { option: first.option }), cause: first },
	);
}
