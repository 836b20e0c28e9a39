// The names of what a checkpoint directory holds (server/audit/publish.ts writes them, the offline verifier
// reads them): zero-padded so that a listing sorts by tree size.
const pad = (n: number) => String(n).padStart(12, "0");

export const checkpointFileName = (size: number) => `${pad(size)}.checkpoint`;
export const leavesFileName = (from: number, to: number) => `${pad(from)}-${pad(to)}.leaves`;

export const CHECKPOINT_FILE = /^(\d+)\.checkpoint$/;
export const LEAVES_FILE = /^(\d+)-(\d+)\.leaves$/;
