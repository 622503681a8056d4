/**
 * `DT64_DECODE_THREADS`: how many decode threads the environment asks for. Read wherever an export or inspect
 * starts, so that a wrong value is refused whatever the store's codecs, not only once a thread pool starts.
 */
import { UsageError } from "../../errors.js";

/** The most decode threads `DT64_DECODE_THREADS` may ask for: each costs 10-20 MiB and a chunk in flight. */
const MAX_DECODE_THREADS = 16;

/** The count `DT64_DECODE_THREADS` asks for, if it is set (an empty value is not); anything else is refused. */
export function decodeThreadsAsked(): number | undefined {
	const asked = process.env.DT64_DECODE_THREADS;
	if (asked === undefined || asked === "") return undefined;
	if (!/^[0-9]+$/.test(asked) || Number(asked) > MAX_DECODE_THREADS) {
		throw new UsageError(`DT64_DECODE_THREADS must be a whole number from 0 to ${MAX_DECODE_THREADS}, got ${JSON.stringify(asked)}`, { option: "DT64_DECODE_THREADS", value: asked });
	}
	return Number(asked);
}
