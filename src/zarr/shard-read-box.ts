/**
 * Which inner chunks of a shard one read takes at once, during a pass over a box of inner chunks in C order of the
 * grid (readChunksInOrder). A read holds its bytes until each of its inner chunks is asked for, and at most
 * SHARD_DATA_LIMIT shards' reads are held (shard-index.ts): a shard read whole while more shards than that are
 * being read at once (a row of inner chunks across more shards than that) would be dropped before its last inner
 * chunks are asked for, and read again for each row of inner chunks. Such a pass reads each shard by the parts of
 * it that the C order asks for one after another, each part once.
 */
import type { ChunkBox } from "./chunk-box.js";
import { product } from "./grid.js";

/**
 * The inner chunks of the shard of the inner chunk at `coords` (array coordinates of the inner chunk grid `grid`,
 * `perShard` inner chunks a shard along each axis) that a read of it takes at once during a pass over `pass`
 * (default: the whole grid), in inner chunk coordinates of that shard; undefined for the whole shard.
 *
 * Along axis a, the pass's shards are read at once as many as it crosses along the axes after a: the C order goes
 * through a shard's inner chunks with a given coordinate on the axes before a while it goes across those. The
 * first axis a whose count is at most `limit` is the one from which the part reaches to the pass's edges; along
 * the axes before it, the part is the inner chunk's coordinate alone. `narrowed`: whether the part is less than
 * what the pass covers of the shard.
 */
export function shardReadBox(
	pass: ChunkBox | undefined,
	coords: readonly number[],
	perShard: readonly number[],
	grid: readonly number[],
	limit: number,
): { box: ChunkBox | undefined; narrowed: boolean } {
	const box = pass ?? { start: grid.map(() => 0), end: grid };
	const across = box.start.map((start, axis) => Math.ceil(box.end[axis] / perShard[axis]) - Math.floor(start / perShard[axis]));
	let from = 0;
	while (from < grid.length - 1 && product(across.slice(from + 1)) > limit) from++;
	const origin = coords.map((c, axis) => c - (c % perShard[axis]));
	// Along axis `axis` from axis `from` on, what the pass covers of the shard. A pass to the end of the grid covers
	// the inner chunks a last shard holds past the array's edge too, as a whole read does.
	const passStart = (axis: number) => Math.max(0, box.start[axis] - origin[axis]);
	const passEnd = (axis: number) => (box.end[axis] >= grid[axis] ? perShard[axis] : Math.min(perShard[axis], box.end[axis] - origin[axis]));
	const start = origin.map((first, axis) => (axis < from ? coords[axis] - first : passStart(axis)));
	const end = origin.map((first, axis) => (axis < from ? coords[axis] - first + 1 : passEnd(axis)));
	const whole = start.every((s, axis) => s === 0 && end[axis] === perShard[axis]);
	const narrowed = start.some((s, axis) => s !== passStart(axis) || end[axis] !== passEnd(axis));
	return { box: whole ? undefined : { start, end }, narrowed };
}
