// Node 20 (V8 11.3) implements String.prototype.isWellFormed/toWellFormed; TypeScript types them only
// in the ES2024 lib, which would also admit APIs Node 20 lacks (Promise.withResolvers, Object.groupBy).
interface String {
  isWellFormed(): boolean;
  toWellFormed(): string;
}
