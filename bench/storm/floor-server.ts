/**
 * The floor: a no-op uWebSockets.js server answering every request with a fixed small JSON body,
 * run as its own process so the storm driver hits it exactly like the service.
 *   node --import tsx bench/storm/floor-server.ts <port>
 */
import uWS from "@trufflesuite/uws-js-unofficial";

if (!uWS.App.toString().includes("[native code]")) throw new Error("uWS native addon did not load");
const port = Number(process.argv[2] ?? "0");
const BODY = '{"ok":true}';
uWS
  .App()
  .any("/*", (res) => {
    res.onAborted(() => undefined);
    res.onData((_chunk, isLast) => {
      if (!isLast) return;
      res.cork(() => {
        res.writeStatus("200 OK").writeHeader("content-type", "application/json").end(BODY);
      });
    });
  })
  .listen("127.0.0.1", port, (socket) => {
    if (socket === false) {
      process.stderr.write(`floor: cannot listen on ${port}\n`);
      process.exit(1);
    }
    process.stdout.write("floor ready\n");
  });
process.on("SIGTERM", () => process.exit(0));
