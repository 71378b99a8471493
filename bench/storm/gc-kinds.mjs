// The garbage collections' kinds by V8's numbers (`PerformanceEntry.detail.kind`), as the preloads
// (sampler.mjs, timeline.mjs) report them.
import { constants } from "node:perf_hooks";

export const GC_KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: "scavenge",
  [constants.NODE_PERFORMANCE_GC_MAJOR]: "mark-compact",
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental marking",
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weak callbacks",
};
