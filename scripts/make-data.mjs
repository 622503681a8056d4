// Regenerates the sample stores in data/ (`npm run make-data`). Deterministic: fixed seeds, fixed start times,
// so the stores come out byte-identical on every run.
import * as fs from "node:fs/promises";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { mulberry32 as random } from "./lib/mulberry32.mjs";
import { NAT, writeArray } from "./lib/zarr-writer.mjs";

const DATA = fileURLToPath(new URL("../data/", import.meta.url));
const LE = { name: "bytes", configuration: { endian: "little" } };


/** @param {string} name @param {Record<string, Parameters<typeof writeArray>[2]>} arrays by path ("" for the root) */
async function writeStore(name, arrays) {
	const root = path.join(DATA, name);
	await fs.rm(root, { recursive: true, force: true });
	for (const [arrayPath, spec] of Object.entries(arrays)) await writeArray(root, arrayPath, spec);
	console.log(`wrote data/${name}`);
}

/** @param {string} name @param {Parameters<typeof writeArray>[2]} spec */
const write = (name, spec) => writeStore(name, { "": spec });

// 1. The hourly observation times of a weather station over 730 days from 2023-01-01T00:00, in seconds. Outages
// (runs of several hours) and single lost readings are NaT.
{
	const rand = random(2023);
	const hours = 730 * 24;
	const start = BigInt(Date.UTC(2023, 0, 1) / 1000);
	const times = BigInt64Array.from({ length: hours }, (_, i) => start + BigInt(i) * 3600n);
	const outages = [
		[1000, 6],
		[4090, 12],
		[9321, 30],
		[14000, 3],
		[17400, 9],
	];
	for (const [from, length] of outages) times.fill(NAT, from, from + length);
	for (let k = 0; k < 40; k++) times[Math.floor(rand() * hours)] = NAT;
	await write("weather-station.zarr", {
		shape: [hours],
		chunks: [4096],
		values: times,
		dataType: { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } },
		fillValue: NAT,
		codecs: [LE, { name: "gzip", configuration: { level: 5 } }],
		dimensionNames: ["time"],
		attributes: {
			description: "Hourly observation times of a weather station, 2023-01-01T00:00 to 2024-12-30T23:00; NaT where no reading was recorded",
			station: "sample",
			outages: outages.map(([from, length]) => ({ index: from, hours: length })),
		},
	});
}

// 2. Observation times on a [day, hour] grid for 2023, in minutes: each reading is taken 0-4 minutes after the
// hour. About 2% of readings are lost (NaT), and days 224-255 (a maintenance month) have none, so whole inner
// chunks are absent from the shard index. Shards [128, 24], inner chunks [32, 8]: ragged at the last shard and
// in its last inner row.
{
	const rand = random(365);
	const days = 365;
	const start = BigInt(Date.UTC(2023, 0, 1) / 60000);
	const times = new BigInt64Array(days * 24);
	for (let d = 0; d < days; d++) {
		for (let h = 0; h < 24; h++) {
			const lost = (d >= 224 && d < 256) || rand() < 0.02;
			const jitter = Math.floor(rand() * 5);
			times[d * 24 + h] = lost ? NAT : start + BigInt(d * 1440 + h * 60 + jitter);
		}
	}
	await write("sharded-2d.zarr", {
		shape: [days, 24],
		chunks: [128, 24],
		values: times,
		dataType: { name: "numpy.datetime64", configuration: { unit: "m", scale_factor: 1 } },
		fillValue: NAT,
		codecs: [
			{
				name: "sharding_indexed",
				configuration: {
					chunk_shape: [32, 8],
					codecs: [LE, { name: "zstd", configuration: { level: 3, checksum: false } }],
					index_codecs: [LE, { name: "crc32c" }],
					index_location: "end",
				},
			},
		],
		dimensionNames: ["day", "hour"],
		attributes: {
			description: "Observation times (minutes) on a day x hour grid for 2023, readings 0-4 minutes after the hour; NaT where lost, and for days 224-255 (maintenance)",
		},
	});
}

// 3. A week of hourly observations as companion arrays of one group (the root): observation times in seconds (NaT
// where the reading was lost), the temperature (float32) and the station that took it (strings). Each array has
// its own chunks and codecs, as zarr-python would write them.
{
	const rand = random(168);
	const hours = 7 * 24;
	const start = BigInt(Date.UTC(2024, 0, 1) / 1000);
	const times = BigInt64Array.from({ length: hours }, (_, i) => (rand() < 0.05 ? NAT : start + BigInt(i) * 3600n));
	const temperature = Float32Array.from({ length: hours }, (_, i) => Math.round(40 * (2 + 6 * Math.sin(((i % 24) - 9) * (Math.PI / 12)) + 2 * rand())) / 40);
	const station = Array.from({ length: hours }, (_, i) => (i % 24 < 12 ? "north" : "south"));
	const dimensionNames = ["hour"];
	await writeStore("observations.zarr", {
		time: {
			shape: [hours],
			chunks: [64],
			values: times,
			dataType: { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } },
			fillValue: NAT,
			codecs: [LE, { name: "gzip", configuration: { level: 5 } }],
			dimensionNames,
		},
		temperature: { shape: [hours], chunks: [100], values: temperature, dataType: "float32", fillValue: "NaN", codecs: [LE, { name: "zstd", configuration: { level: 3, checksum: false } }], dimensionNames, attributes: { units: "degC" } },
		station: { shape: [hours], chunks: [hours], values: station, dataType: "string", fillValue: "", codecs: [{ name: "vlen-utf8" }, { name: "zstd", configuration: { level: 3, checksum: false } }], dimensionNames },
	});
}
