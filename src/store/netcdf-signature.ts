import * as fs from "node:fs";

/**
 * The signatures a netCDF file starts with: classic (`CDF\x01`), 64-bit offset (`CDF\x02`) and 64-bit data
 * (`CDF\x05`) formats, and netCDF-4, an HDF5 file (`\x89HDF\r\n\x1a\n`): the file a climate user has most often,
 * named instead of a Zarr store.
 */
const NETCDF_STARTS = [Buffer.from("CDF\x01", "latin1"), Buffer.from("CDF\x02", "latin1"), Buffer.from("CDF\x05", "latin1"), Buffer.from("\x89HDF\r\n\x1a\n", "latin1")];

/** Whether a local regular file starts as a netCDF (or other HDF5) file does; false when it cannot be read. */
export async function startsAsNetcdf(file: string): Promise<boolean> {
	try {
		const handle = await fs.promises.open(file, "r");
		try {
			const start = Buffer.alloc(8);
			const { bytesRead } = await handle.read(start, 0, start.length, 0);
			return NETCDF_STARTS.some((signature) => bytesRead >= signature.length && signature.equals(start.subarray(0, signature.length)));
		} finally {
			await handle.close();
		}
	} catch {
		return false;
	}
}
