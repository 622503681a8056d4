import { countText } from "./count-text.js";

/**
 * Progress on stderr: chunks, rows, rate and ETA. On a terminal one line redrawn at most every 200 ms; elsewhere
 * (`--progress` into a log or a pipe, or a terminal of TERM=dumb) plain lines at most every 2 s, with no control
 * characters to garble the log.
 */
export class Progress {
	readonly #started = Date.now();
	readonly #redraw: boolean;
	#lastDraw = 0;
	/** A redrawn line is on the screen without its newline yet. */
	#lineOpen = false;
	/** The line of the last chunk has been written. */
	#lastShown = false;
	/** The chunks to read, as the last update told. */
	#totalChunks: number | undefined;

	/**
	 * `term`: the terminal's type (TERM). A `dumb` one (Emacs' shell, a CI log viewer that allocates a pty) cannot
	 * erase a line, and would show every redraw's escape as text: it gets the plain lines (trial 25, finding 16).
	 */
	constructor(
		private readonly stream: NodeJS.WritableStream & { isTTY?: boolean },
		private readonly totalValues: number,
		term = process.env.TERM,
	) {
		this.#redraw = stream.isTTY === true && term !== "dumb";
	}

	update(chunk: number, totalChunks: number): void {
		this.#totalChunks = totalChunks;
		const now = Date.now();
		if (now - this.#lastDraw < (this.#redraw ? 200 : 2000) && chunk < totalChunks) return;
		this.#lastDraw = now;
		this.#lastShown = chunk >= totalChunks;
		const seconds = Math.max((now - this.#started) / 1000, 1e-3);
		const rows = Math.round((this.totalValues * chunk) / totalChunks);
		const rate = rows / seconds;
		const eta = rate > 0 ? (this.totalValues - rows) / rate : 0;
		const line = `chunks ${chunk}/${totalChunks}  rows ${countText(rows)}/${countText(this.totalValues)}  ${rateText(rate)}  ETA ${eta.toFixed(0)} s`;
		if (this.#redraw) {
			this.stream.write(`\r\x1b[K${line}`);
			this.#lineOpen = true;
		} else {
			this.stream.write(`${line}\n`);
		}
	}

	/**
	 * The export is over: the line of its last chunk is written if no update wrote it (the CLI starts reading before
	 * this exists, and the first batch of a store of small chunks may gather every chunk), then the line is ended.
	 * Without `totalChunks` (a dataset export, whose reader the CLI does not hold), the count the updates told.
	 */
	finish(totalChunks = this.#totalChunks): void {
		if (!this.#lastShown && totalChunks !== undefined) this.update(totalChunks, totalChunks);
		this.done();
	}

	/** Ends the progress line, if one is showing, so that what follows starts on a line of its own. */
	done(): void {
		if (this.#lineOpen) this.stream.write("\n");
		this.#lineOpen = false;
	}
}

/**
 * Rows per second in a unit that shows it: `0.4 M rows/s` from a million a second down to 100,000, below that whole
 * rows (`14,200 rows/s`, a remote export of small chunks), so that the rate never reads 0.0 while rows arrive.
 */
export function rateText(rowsPerSecond: number): string {
	if (rowsPerSecond >= 100_000) return `${(rowsPerSecond / 1e6).toFixed(1)} M rows/s`;
	return `${countText(Math.round(rowsPerSecond))} rows/s`;
}
