// The raw baseline of `npm run bench`: a node:http hello-world with nothing else, run by plain `node` in a process
// of its own (started by bench/raw-baseline.ts). It prints its port once it listens and stops on SIGTERM.
import { createServer } from 'node:http';

const server = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '11' });
  res.end('Hello World');
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => console.log(`listening on ${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
