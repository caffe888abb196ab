/**
 * The bare Fastify server the http bench and scripts/route-cpu.ts compare the app with, run as
 * `node --input-type=module -e BARE_SERVER_SOURCE` with PORT and ROOT_BODY (the app's GET / body) set:
 * `GET /bare` answers a small object, `GET /bare-root` the app's GET / bytes as a ready string, the way
 * the app sends them.
 */
export const BARE_SERVER_SOURCE = `
import Fastify from 'fastify';
const app = Fastify({ logger: false });
app.get('/bare', async () => ({ status: 'ok', service: 'bare' }));
// The app's GET / body, sent as a ready string the way the app sends it: the same bytes on the wire.
app.get('/bare-root', (request, reply) => {
  reply.type('application/json; charset=utf-8').send(process.env.ROOT_BODY);
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
`;
