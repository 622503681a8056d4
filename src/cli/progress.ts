/** Progress on stderr: chunks, rows, rate and ETA, redrawn at most every 200 ms. */
export class Progress {
	readonly #started = Date.now();
	#lastDraw = 0;

	constructor(
		private readonly stream: NodeJS.WriteStream,
		private readonly totalValues: number,
	) {}

	update(chunk: number, totalChunks: number): void {
		const now = Date.now();
		if (now - this.#lastDraw < 200 && chunk < totalChunks) return;
		this.#lastDraw = now;
		const seconds = Math.max((now - this.#started) / 1000, 1e-3);
		const rows = Math.round((this.totalValues * chunk) / totalChunks);
		const rate = rows / seconds;
		const eta = rate > 0 ? (this.totalValues - rows) / rate : 0;
		this.stream.write(
			`\r\x1b[Kchunks ${chunk}/${totalChunks}  rows ${rows.toLocaleString("en")}/${this.totalValues.toLocaleString("en")}  ${(rate / 1e6).toFixed(1)} M rows/s  ETA ${eta.toFixed(0)} s`,
		);
	}

	done(): void {
		if (this.#lastDraw > 0) this.stream.write("\n");
	}
}
