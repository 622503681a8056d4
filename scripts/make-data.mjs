// Regenerates the sample stores in data/ (deterministic): `npm run make-data`.
import * as fs from "node:fs/promises";
import { writeArray } from "./lib/write-zarr.mjs";

const NAT = -(2n ** 63n);
let seed = 20230101;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);

// 1. An hourly weather-station time axis over two years, with outages (runs of NaT) and single lost readings.
const hours = 2 * 365 * 24;
const start = BigInt(Date.UTC(2023, 0, 1) / 1000);
const hourly = new BigInt64Array(hours);
for (let i = 0; i < hours; i++) hourly[i] = start + BigInt(i) * 3600n;
for (const [from, length] of [[1000, 6], [5000, 30], [12000, 3]]) hourly.fill(NAT, from, from + length);
for (let k = 0; k < 40; k++) hourly[Math.floor(random() * hours)] = NAT;
await fs.rm("data/weather-station.zarr", { recursive: true, force: true });
await writeArray("data/weather-station.zarr", "", {
	shape: [hours],
	chunks: [4096],
	dataType: { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } },
	fillValue: NAT,
	values: hourly,
	codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "gzip", configuration: { level: 5 } }],
	attributes: { description: "observation times of an hourly weather station, 2023-2024, with outages as NaT" },
});

// 2. A 2-D [day, hour] grid of observation times in minutes, sharded, with jitter and some NaT.
const days = 365;
const grid = new BigInt64Array(days * 24);
const startMinutes = BigInt(Date.UTC(2024, 0, 1) / 60000);
for (let d = 0; d < days; d++) {
	for (let h = 0; h < 24; h++) {
		grid[d * 24 + h] = random() < 0.02 ? NAT : startMinutes + BigInt(d * 1440 + h * 60 + Math.floor(random() * 5));
	}
}
await fs.rm("data/sharded-2d.zarr", { recursive: true, force: true });
await writeArray("data/sharded-2d.zarr", "", {
	shape: [days, 24],
	chunks: [128, 24],
	dataType: { name: "numpy.datetime64", configuration: { unit: "m", scale_factor: 1 } },
	fillValue: NAT,
	values: grid,
	dimensionNames: ["day", "hour"],
	codecs: [
		{
			name: "sharding_indexed",
			configuration: {
				chunk_shape: [32, 8],
				codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 3, checksum: false } }],
				index_codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }],
				index_location: "end",
			},
		},
	],
	attributes: { description: "observation times (minutes) on a day x hour grid, 2024, sharded" },
});
console.log("wrote data/weather-station.zarr and data/sharded-2d.zarr");
