/**
 * The benchmark's floor: the least a Node HTTP hop does — read the request, send it on over a keep-alive
 * connection, relay the answer — with no recording, no error handling and no header filtering. What the
 * proxy costs beyond this is its own work; what this costs beyond a direct connection is any Node hop's.
 *
 *     node --import tsx bench/passthrough.ts <upstream port>
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

const upstreamPort = Number(process.argv[2]);
const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const up = http.request(
      { host: "127.0.0.1", port: upstreamPort, method: req.method, path: req.url, headers: req.headers, agent },
      (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      },
    );
    up.end(Buffer.concat(chunks));
  });
});
server.listen(0, "127.0.0.1", () =>
  console.log(JSON.stringify({ msg: "listening", url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })),
);
