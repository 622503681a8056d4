#!/usr/bin/env bash
# One task of a Slurm job array: task K of N exports its part of the rows into the shared dataset folder.
# Submit:   sbatch examples/slurm-array.sh
# Then:     sbatch --dependency=afterok:<job id> --wrap "npx dt64-export commit /shared/t2m-2021"
#SBATCH --job-name=dt64-export-t2m-2021
#SBATCH --array=0-3
#SBATCH --cpus-per-task=2
#SBATCH --mem=2G
#SBATCH --requeue
set -euo pipefail

STORE=${STORE:-https://data.example.org/era5/t2m.zarr}
OUT=${OUT:-/shared/t2m-2021}
# The command that runs dt64-export (a local install: DT64_EXPORT="node /opt/dt64-export/bin/dt64-export.js").
DT64_EXPORT=${DT64_EXPORT:-npx --yes dt64-export@0.1.0}

# --part auto reads SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT and SLURM_ARRAY_TASK_MIN.
$DT64_EXPORT "$STORE" \
	--columns time,t2m \
	--start 2021-01-01 --end 2022-01-01 \
	--partition-by day \
	--to parquet \
	--part auto \
	-o "$OUT"
