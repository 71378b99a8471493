/**
 * What is wrong with `message` as a client-facing message, or undefined when nothing is: the rule
 * docs/errors.md states for a `service_unavailable` message, as a check (one sentence fragment in
 * plain words, lower case, no trailing period, that a client can read without knowing the
 * service's insides; engine/runtime/unavailable.ts's UnavailableError carries such messages). The
 * service does not call it: it is here, with the code tests and benches share, so that the tests
 * (test/cluster/unavailable-messages.test.ts on the messages' sources, the cluster's fault tests on
 * the 503 bodies they collect) and bench:cluster-faults (bench/cluster-prober.ts) use one copy.
 */
export function plainWordsProblem(message: string): string | undefined {
  if (message.trim() === "") return "it is empty";
  if (/[\r\n]/.test(message)) return "it spans lines";
  if (/\b[A-Z]\w*(?:Error|Exception)\b/.test(message)) return "it names an error class";
  if (/\bat [\w$.<>]+ \(|\.(?:js|ts):\d+/.test(message)) return "it quotes a stack trace";
  if (/\$JS|\bKV_|\bcluster\.(?:partition|keys|events|leases)\b|\bjournal\.partition-/.test(message)) return "it names a NATS subject or an internal stream";
  if (/no responders|err_code|\bapi error\b/i.test(message)) return "it quotes NATS's own error text";
  if (!/^[a-z]/.test(message) && !/^[A-Z]{2,}\b/.test(message)) return "it does not start in lower case";
  if (/\.\s*$/.test(message)) return "it ends with a period";
  const doubled = /(\b[^:;()]{3,}?): \1\b/.exec(message);
  if (doubled !== null) return `it repeats its prefix "${doubled[1]}"`;
  const named: string[] = message.match(/\b(?:partition|shard) \d+\b/g) ?? [];
  const twice = named.find((name, i) => named.indexOf(name) !== i);
  if (twice !== undefined) return `it names ${twice} twice`;
  if (message.length > 300) return "it is longer than 300 characters";
  return undefined;
}
