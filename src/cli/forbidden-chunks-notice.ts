/**
 * What an export under `--forbidden-as-missing` says of the chunks it read as missing because S3 answered 403
 * AccessDenied: said even with --quiet, like an empty part, since the same 403 is a chunk never written and one the
 * credentials may not read (a KMS key, a bucket policy), and the rows hold the fill value either way.
 */
import { KEYS_NAMED, type ForbiddenChunks } from "../store/forbidden-chunks.js";
import { countText } from "./count-text.js";

/** The warning line, or undefined when no chunk was read so. */
export function forbiddenChunksNotice(forbidden: ForbiddenChunks | undefined): string | undefined {
	if (forbidden === undefined) return undefined;
	return forbiddenChunksWarning(forbidden.count, forbidden.firstKeys(KEYS_NAMED));
}

/**
 * The warning line for `count` chunks read so, of which `keys` are the first (the first KEYS_NAMED are named), or
 * undefined for none: an export's, and commit's for the chunks its parts read so.
 */
export function forbiddenChunksWarning(count: number, keys: readonly string[]): string | undefined {
	if (count === 0) return undefined;
	const named = keys.slice(0, KEYS_NAMED);
	const more = count > named.length ? ` and ${countText(count - named.length)} more` : "";
	return `dt64-export: warning: ${countText(count)} ${count === 1 ? "chunk" : "chunks"} answered 403 AccessDenied ${count === 1 ? "was" : "were"} read as missing, the fill value (--forbidden-as-missing): ${named.join(", ")}${more}; a chunk never written and one these credentials may not read answer alike\n`;
}
