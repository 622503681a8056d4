/**
 * What an export under `--forbidden-as-missing` says of the chunks it read as missing because S3 answered 403
 * AccessDenied: said even with --quiet, like an empty part, since the same 403 is a chunk never written and one the
 * credentials may not read (a KMS key, a bucket policy), and the rows hold the fill value either way.
 */
import type { ForbiddenChunks } from "../store/forbidden-chunks.js";
import { countText } from "./count-text.js";

const KEYS_SHOWN = 3;

/** The warning line, or undefined when no chunk was read so. */
export function forbiddenChunksNotice(forbidden: ForbiddenChunks | undefined): string | undefined {
	if (forbidden === undefined || forbidden.count === 0) return undefined;
	const { count } = forbidden;
	const keys = forbidden.firstKeys(KEYS_SHOWN).join(", ");
	const more = count > KEYS_SHOWN ? ` and ${countText(count - KEYS_SHOWN)} more` : "";
	return `dt64-export: warning: ${countText(count)} ${count === 1 ? "chunk" : "chunks"} answered 403 AccessDenied ${count === 1 ? "was" : "were"} read as missing, the fill value (--forbidden-as-missing): ${keys}${more}; a chunk never written and one these credentials may not read answer alike\n`;
}
