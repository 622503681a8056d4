/**
 * The requests one store has in flight, narrowed while the service throttles them (429, 503: S3's SlowDown, GCS's
 * and Azure's 503 ServerBusy), as the AWS SDKs' adaptive retry mode does: each request that is throttled halves the
 * number allowed in flight (once per narrowing: the requests sent before it, throttled too, do not halve it again),
 * and each run of as many successes as are allowed widens it by one, until it no longer limits anything. A service
 * that throttles a prefix (S3 partitions at 5,500 GET/s; MinIO, Ceph and R2 limit far lower) then sees fewer
 * requests at once, where each of 32 retrying on its own backoff kept the same load on it.
 */

/** Wider than this, the throttle no longer limits: the reader's own bound on chunks in flight is the one that holds. */
const UNLIMITED_ABOVE = 256;

/** What `admit` hands out and `release` takes back: which narrowing the request was sent under. */
export interface ThrottleTicket {
	readonly narrowing: number;
}

/** How a released request ended. */
export type ThrottleOutcome = "ok" | "throttled" | "other";

/** Runs `abort` when the caller gives up waiting; returns the function that stops listening. */
export type OnAbort = (abort: () => void) => () => void;

export class RequestThrottle {
	#limit = Number.POSITIVE_INFINITY;
	#inFlight = 0;
	#successes = 0;
	#narrowing = 0;
	readonly #waiting: (() => void)[] = [];

	/** The number of requests allowed in flight; Infinity until the service throttles. */
	get limit(): number {
		return this.#limit;
	}

	/** Waits for room for one more request, or rejects with `abortReason()` once `onAbort` says the caller gave up. */
	admit(onAbort?: OnAbort, abortReason?: () => unknown): Promise<ThrottleTicket> | ThrottleTicket {
		if (this.#inFlight < this.#limit && this.#waiting.length === 0) {
			this.#inFlight++;
			return { narrowing: this.#narrowing };
		}
		return new Promise((resolve, reject) => {
			const admitted = () => {
				stopWaiting?.();
				resolve({ narrowing: this.#narrowing });
			};
			const stopWaiting = onAbort?.(() => {
				const at = this.#waiting.indexOf(admitted);
				if (at !== -1) this.#waiting.splice(at, 1);
				reject(abortReason?.());
			});
			this.#waiting.push(admitted);
		});
	}

	release(ticket: ThrottleTicket, outcome: ThrottleOutcome): void {
		this.#inFlight--;
		if (outcome === "throttled" && ticket.narrowing === this.#narrowing) {
			this.#limit = Math.max(1, Math.floor(Math.min(this.#limit, this.#inFlight + 1) / 2));
			this.#narrowing++;
			this.#successes = 0;
		} else if (outcome === "ok" && Number.isFinite(this.#limit) && ++this.#successes >= this.#limit) {
			this.#successes = 0;
			this.#limit = this.#limit + 1 > UNLIMITED_ABOVE ? Number.POSITIVE_INFINITY : this.#limit + 1;
		}
		while (this.#inFlight < this.#limit && this.#waiting.length > 0) {
			this.#inFlight++;
			this.#waiting.shift()!();
		}
	}
}
