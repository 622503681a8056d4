/**
 * A key that S3 answered 403 AccessDenied for. S3 gives that answer for a key that does not exist when the caller
 * may not list the bucket (no s3:ListBucket: a least-privilege role granted s3:GetObject only, a public bucket whose
 * policy grants reading objects but not listing them), so the key is either missing or refused and the answer cannot
 * tell which. Whoever asked decides: a metadata probe reads it as absent and reports it only if nothing is found
 * (store-tree.ts); a chunk stays an error unless the export was told that its missing chunks answer so
 * (`forbiddenAsMissing`).
 */
import { Dt64ExportError, type ErrorFields } from "../errors.js";

/** Why a 403 may be a missing key: said wherever such a 403 is reported. */
export const MISSING_KEYS_ANSWER_403 = "a bucket that does not let the caller list it (no s3:ListBucket) answers 403 for keys that do not exist";

export class RefusedKeyError extends Dt64ExportError {
	constructor(message: string, fields: ErrorFields & { cause?: unknown }) {
		super("ACCESS_DENIED", message, fields);
		this.name = "RefusedKeyError";
	}
}

export function isRefusedKey(error: unknown): error is RefusedKeyError {
	return error instanceof RefusedKeyError;
}

/**
 * A chunk (or shard) key refused when missing chunks are not read as such: the refusal, why it may be a chunk never
 * written, and the option that reads it so. `what` names it: `chunk c/1`, `shard c/0`.
 */
export function refusedChunkError(error: RefusedKeyError, what: string): Dt64ExportError {
	const { path, key } = error;
	return new Dt64ExportError(
		"ACCESS_DENIED",
		`${error.message}; ${MISSING_KEYS_ANSWER_403}, so ${what} may be one that was never written (the fill value): \`forbiddenAsMissing\` reads such chunks as missing`,
		{ path, key, option: "forbiddenAsMissing", cause: error },
	);
}
