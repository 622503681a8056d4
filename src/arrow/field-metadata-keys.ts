/**
 * The keys of the metadata this package writes on Arrow fields. Apart from the modules that build the fields, so
 * that reading a key (the CLI does, at start) does not load apache-arrow.
 */

/** Field metadata key holding the original Zarr `data_type` JSON, so a reader can get the numpy type back. */
export const ZARR_DATA_TYPE_KEY = "zarr.data_type";

/** Field metadata key marking a column decoded from CF time counts ("true"). */
export const CF_DECODED_KEY = "zarr.cf_decoded";

/**
 * Field metadata key of a column whose model calendar's dates were converted to proleptic Gregorian ones: how they
 * were aligned, `date` (the same labels) or `year` (the same day of the year), as xarray's `align_on` says it.
 */
export const CF_ALIGN_ON_KEY = "zarr.cf_align_on";

/**
 * Field metadata key of a time coordinate whose model calendar's dates the proleptic Gregorian calendar lacks left
 * their rows out (`dropInvalidDates`, as xarray's convert_calendar(..., align_on="date") drops them): "dropped".
 */
export const CF_INVALID_DATES_KEY = "zarr.cf_invalid_dates";
