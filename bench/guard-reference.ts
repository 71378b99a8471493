/**
 * The pinned reference build: the commit whose claim-storm throughput every change to the hot path
 * is held to (bench/README.md, "The speed guard"). Move it only to a build measured faster.
 */
export const PINNED_REFERENCE = "5d6d13a";
