import { Counter, Histogram, Registry, type Metric } from "prom-client";
import { describe, expect, it } from "vitest";
import { RequestCounter, RequestHistogram } from "../../gateway/metrics/request-metrics.js";

const BUCKETS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** The same observations through prom-client's own metrics and through ours. */
async function expositions(observations: Array<{ route: string; method: string; status: number; seconds: number }>) {
  const theirs = new Registry();
  const counter = new Counter({ name: "req_total", help: "requests", labelNames: ["route", "method", "status"] as const, registers: [theirs] });
  const histogram = new Histogram({ name: "req_seconds", help: "latency", labelNames: ["route", "method"] as const, buckets: BUCKETS, registers: [theirs] });
  const ours = new Registry();
  type Observation = (typeof observations)[number];
  const requests = new RequestCounter<Observation>("req_total", "requests", (o) => ({ route: o.route, method: o.method, status: String(o.status) }));
  const latency = new RequestHistogram<Observation>("req_seconds", "latency", (o) => ({ route: o.route, method: o.method }), BUCKETS);
  ours.registerMetric(requests as unknown as Metric);
  ours.registerMetric(latency as unknown as Metric);
  for (const o of observations) {
    counter.inc({ route: o.route, method: o.method, status: String(o.status) });
    histogram.observe({ route: o.route, method: o.method }, o.seconds);
    requests.inc(`${o.method} ${o.route} ${o.status}`, o);
    latency.observe(`${o.method} ${o.route}`, o, o.seconds);
  }
  return { theirs: await theirs.metrics(), ours: await ours.metrics() };
}

describe("request metrics counted outside prom-client", () => {
  it("print exactly what prom-client's Counter and Histogram print for the same observations", async () => {
    const routes = ["/v1/markets", "/v1/markets/:marketId/direct-claims", '/odd "route"\\x'];
    const observations = Array.from({ length: 500 }, (_, i) => ({
      route: routes[i % routes.length] as string,
      method: i % 4 === 0 ? "GET" : "POST",
      status: [200, 409, 400, 0][i % 7 % 4] as number,
      // Values on, below and above the bounds, and beyond the last one.
      seconds: [0, 0.0005, 0.00051, 0.001, 0.0123, 0.25, 2.5, 2.6, 30][i % 9] as number,
    }));
    const { theirs, ours } = await expositions(observations);
    expect(ours).toBe(theirs);
    expect(ours).toContain('req_seconds_bucket{le="+Inf",route="/v1/markets",method="GET"}');
  });

  it("print nothing but the header before the first observation", async () => {
    const { theirs, ours } = await expositions([]);
    expect(ours).toBe(theirs);
  });

  it("refuses buckets that do not ascend", () => {
    expect(() => new RequestHistogram("x", "x", () => ({}), [0.1, 0.1])).toThrow(RangeError);
  });
});
