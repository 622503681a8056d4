import { CODECS } from "./codec-map.js";

/** The sharding codec, read by the chunk source rather than the codec pipeline. */
const SHARDING_CODEC = "sharding_indexed";

/** Every codec name this package reads. */
export const KNOWN_CODECS: ReadonlySet<string> = new Set([...CODECS.keys(), SHARDING_CODEC]);

/** The names of KNOWN_CODECS that are array -> bytes codecs (the others are array -> array or bytes -> bytes). */
export const ARRAY_TO_BYTES_CODECS: ReadonlySet<string> = new Set(["bytes", "vlen-utf8", "numcodecs.vlen-utf8", SHARDING_CODEC]);
