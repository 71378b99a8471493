/**
 * marketIdOnPartition reads shardOfMarket backwards (engine/runtime/shard-routing.ts): the cluster's
 * fault tests and bench:cluster-faults rely on the id it gives landing on the partition asked for.
 */
import { describe, expect, it } from "vitest";
import { marketIdOnPartition, shardOfMarket } from "../../engine/runtime/shard-routing.js";

describe("marketIdOnPartition", () => {
  it("gives, for every partition, the first `<prefix>-<n>` that shardOfMarket routes there", () => {
    const partitions = 8;
    for (let partition = 0; partition < partitions; partition += 1) {
      const marketId = marketIdOnPartition("faults-partition", partition, partitions);
      expect(shardOfMarket(marketId, partitions)).toBe(partition);
      const n = Number(marketId.slice("faults-partition-".length));
      for (let earlier = 0; earlier < n; earlier += 1) expect(shardOfMarket(`faults-partition-${earlier}`, partitions)).not.toBe(partition);
    }
  });
});
